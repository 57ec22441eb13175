# Boundary refinement: the core against the closed form on two slices.
ssw_add_test(NAME test_refine SOURCES test_refine.c TIMEOUT 600)
ssw_add_test(NAME test_refine_drift SOURCES test_refine_drift.c TIMEOUT 600)
# The levels an edge skips (passed and recrossed between evaluations):
# counted on its crossings (a synthetic tent of the loop count).
ssw_add_test(NAME test_refine_skipped SOURCES test_refine_skipped.c)
# In a sweep: /boundaries bit for bit for 1-3 ranks x 1-2 threads, a
# resume of a run killed while refining, the file without [refine].
ssw_add_test(NAME test_refine_sweep TIMEOUT 600
  COMMAND ${SSW_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/test_refine_sweep.py
          $<TARGET_FILE:sleighsweep> ${MPIEXEC_EXECUTABLE})
# [refine] points: the measurements at the crossings against their levels
# and the closed form, the same on 1 and 2 ranks.
ssw_add_test(NAME test_refine_points TIMEOUT 300
  COMMAND ${SSW_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/test_refine_points.py
          $<TARGET_FILE:sleighsweep> ${MPIEXEC_EXECUTABLE})
# [refine] classes = chaos on a synthetic Lyapunov field: its classes with
# the error band, a separated edge located to tol, a band inside the
# bracket, ends within their error bars unresolved (test_refine_chaos).
ssw_add_test(NAME test_refine_chaos SOURCES test_refine_chaos.c)
# [refine] classes = chaos in a sweep: the exponents read back from the
# file, an accelerating corner's edges unresolved (test_chaos_sweep).
ssw_add_test(NAME test_chaos_sweep
  COMMAND ${SSW_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/test_chaos_sweep.py
          $<TARGET_FILE:sleighsweep>
  LABELS numerics)
