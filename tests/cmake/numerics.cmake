# Core numerics: model, closed form, stepper, extraction, CLI.
ssw_add_test(NAME test_model SOURCES test_model.c)
ssw_add_test(NAME test_round_ellipse SOURCES test_round_ellipse.c LABELS numerics)
ssw_add_test(NAME test_stepper SOURCES test_stepper.c)
# The same with the 4-lane kernel forced (SSW_KERNEL_LANES=4): the width
# reported changes, every lane's bits do not.
ssw_add_test(NAME stepper_lanes4 COMMAND $<TARGET_FILE:test_stepper>
             ENV SSW_KERNEL_LANES=4 LABELS unit)
# The kernel on every instruction set the CPU has (baseline with libm's
# fma, AVX2, AVX-512) and every width: the same bits.
ssw_add_test(NAME test_kernel_isa SOURCES test_kernel_isa.c)
ssw_add_test(NAME test_extract SOURCES test_extract.c)
ssw_add_test(NAME test_accuracy SOURCES test_accuracy.c)
ssw_add_test(NAME test_honest SOURCES test_honest.c)
# Every scheme, adaptive and at fixed steps, with circulation and drag: the
# estimates bound the errors or the result is flagged (point JSON).
ssw_add_test(NAME test_honest_schemes TIMEOUT 900 LABELS batch
  COMMAND ${SSW_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/test_honest_schemes.py
          $<TARGET_FILE:sleighsweep>)
ssw_add_test(NAME test_ensemble SOURCES test_ensemble.c)
ssw_add_test(NAME test_schemes SOURCES test_schemes.c)
ssw_add_test(NAME test_path_engine SOURCES test_path_engine.c)
ssw_add_test(NAME test_cli_point
  COMMAND ${SSW_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/test_cli_point.py
          $<TARGET_FILE:sleighsweep>)
# The exact path and the blade force against GSL's rk8pd (the reference
# integration); GSL is already required by the benchmark.
find_package(GSL QUIET)
if(GSL_FOUND)
  ssw_add_test(NAME test_path_exact SOURCES test_path_exact.c)
  target_link_libraries(test_path_exact PRIVATE GSL::gsl)
  ssw_add_test(NAME test_blade_force SOURCES test_blade_force.c)
  target_link_libraries(test_blade_force PRIVATE GSL::gsl)
endif()
# Command-line messages: did-you-mean, missing values,
# --help of methods and figures.sh, numbers as the user wrote them.
# OpenMP's idle threads wait passively unless the user set
# OMP_WAIT_POLICY or GOMP_SPINCOUNT (src/cli/main.c), read from libgomp.
ssw_add_test(NAME test_wait_policy
  COMMAND ${SSW_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/test_wait_policy.py
          $<TARGET_FILE:sleighsweep>)
ssw_add_test(NAME test_cli_messages
  COMMAND ${SSW_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/test_cli_messages.py
          $<TARGET_FILE:sleighsweep> ${CMAKE_SOURCE_DIR}
          ${MPIEXEC_EXECUTABLE})
# Circulation above the critical energy against the theory's formulas.
ssw_add_test(NAME test_circulation SOURCES test_circulation.c LABELS numerics)
# RATTLE with circulation: orders, energy, equilibria, symmetry, multiplier.
ssw_add_test(NAME test_circulation_rattle SOURCES test_circulation_rattle.c
  LABELS numerics)
# The ends of the accepted ranges through `point` and a sweep: energies,
# mass scales, velocities, near line-to-line, theta, refusals and flags.
ssw_add_test(NAME test_scales TIMEOUT 300
  COMMAND ${SSW_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/test_scales.py
          $<TARGET_FILE:sleighsweep> ${MPIEXEC_EXECUTABLE})
# Linear drag: the discrete energy balance, the step's symmetry and
# equations, every scheme's order against the exact damped motion, refusals
# (test_drag); the forward-only extraction to rest against the exact
# oracle, the rest eigenvalues and the small-drag limit (test_damped).
ssw_add_test(NAME test_drag SOURCES test_drag.c LABELS numerics)
ssw_add_test(NAME test_damped SOURCES test_damped.c LABELS numerics)
# Time in the schemes: nodes, the time each lane carries, a test-only
# time-dependent force against its discrete energy balance and an exact
# solution.
ssw_add_test(NAME test_forcing SOURCES test_forcing.c)
# The effect table and the scaler: every field of the tensor and of a
# trajectory's result declared with its dimension, both surviving a scale
# round trip, a model's capabilities from its effects.
ssw_add_test(NAME test_effects SOURCES test_effects.c)
