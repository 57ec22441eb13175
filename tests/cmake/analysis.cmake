# Analysis scripts (analysis/*.py): phase diagrams, trajectories and
# validation on a small sweep made by the test (mpirun -np 2), partial and
# broken files, bad arguments. About 20-40 s.
ssw_add_test(NAME test_analysis TIMEOUT 600
  COMMAND ${SSW_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/analysis/test_analysis.py
          $<TARGET_FILE:sleighsweep> ${MPIEXEC_EXECUTABLE})

# The figure gallery (analysis/figures.sh) end to end: engine runs, every
# figure, captions, data against the files. About 30-60 s on 2 cores;
# `ctest -LE gallery` skips it.
ssw_add_test(NAME test_gallery TIMEOUT 1200 LABELS gallery
  COMMAND ${SSW_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/analysis/test_gallery.py
          $<TARGET_FILE:sleighsweep> ${MPIEXEC_EXECUTABLE})

# Paper figures: panels by an axis, ax=, panel geometry, log
# scale, units and labels, trajectory panels, uniform motion. About 10 s.
ssw_add_test(NAME test_figures TIMEOUT 600
  COMMAND ${SSW_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/analysis/test_figures.py
          $<TARGET_FILE:sleighsweep> ${MPIEXEC_EXECUTABLE})

# The quick start (scripts/quickstart.sh without its install/build steps)
# and the README's first plotting commands.
ssw_add_test(NAME test_quickstart TIMEOUT 120
  COMMAND ${SSW_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/test_quickstart.py
          $<TARGET_FILE:sleighsweep> ${CMAKE_SOURCE_DIR})

# Circulation's figures: the H = H_c curve against the file's datasets,
# regime legends, periodic paths continued by their rigid motion, both
# arcs, and the gallery's three circulation figures, on a small sweep and
# point runs made here. About 15 s.
ssw_add_test(NAME test_circulation_figures TIMEOUT 300
  COMMAND ${SSW_PYTHON}
          ${CMAKE_CURRENT_SOURCE_DIR}/analysis/test_circulation_figures.py
          $<TARGET_FILE:sleighsweep> ${MPIEXEC_EXECUTABLE})

# Maps over the run axes: a (Gamma, energy) sweep made here (mpirun -np
# 2): the file's nine axes, the map's slices and --fix selections against
# the datasets, H = H_c and the drift energies H_n on the grid edges the
# closed forms from the file's tensor cross, log energy axis. About 10 s.
ssw_add_test(NAME test_run_axes_figures TIMEOUT 300
  COMMAND ${SSW_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/analysis/test_run_axes_figures.py
          $<TARGET_FILE:sleighsweep> ${MPIEXEC_EXECUTABLE})

# Drag's paths in trajectory.py: no limit circles, the rest point marked
# where the path ends, a focus spiralling in, a sweep's damped sample.
ssw_add_test(NAME test_drag_figures TIMEOUT 300
  COMMAND ${SSW_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/analysis/test_drag_figures.py
          $<TARGET_FILE:sleighsweep> ${MPIEXEC_EXECUTABLE})

# Refined crossings (a sweep with [refine] made here, mpirun -np 2): the
# drawn markers are the file's /boundaries positions on the slice, bit for
# bit, and each Z = 0 / L1 = 0 crossing lies within tol of the zero of the
# tensor's closed form found by bisection; --no-refined. About 5 s.
ssw_add_test(NAME test_refined_figures TIMEOUT 300
  COMMAND ${SSW_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/analysis/test_refined_figures.py
          $<TARGET_FILE:sleighsweep> ${MPIEXEC_EXECUTABLE})

# The sleighsweep package: open -> xarray against the stored
# values, categories, squeeze, groups, export read by CDO (cdo sinfo) and
# NCO, validate's compared list and its failure on a file with nothing to
# compare, no h5py reader in the package or the scripts. About 30 s.
ssw_add_test(NAME test_package TIMEOUT 600
  COMMAND ${SSW_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/analysis/test_package.py
          $<TARGET_FILE:sleighsweep> ${MPIEXEC_EXECUTABLE})

# Layouts that cannot collapse: every figure type at its default size on
# small sweeps made here keeps its data over a third of the figure, no two
# texts overlap, refined joins stay on one branch. About 60 s.
ssw_add_test(NAME test_layouts TIMEOUT 900
  COMMAND ${SSW_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/analysis/test_layouts.py
          $<TARGET_FILE:sleighsweep> ${MPIEXEC_EXECUTABLE})
