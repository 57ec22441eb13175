# HDF5 output: collective writes from 1 and 3 ranks, read-back, resume; the
# file as xarray/h5netcdf sees it (named dims, coordinates, units, masking).
ssw_add_test(NAME test_h5out_np1 SOURCES test_h5out.c RANKS 1 LABELS h5out)
ssw_add_test(NAME test_h5out_np3 COMMAND $<TARGET_FILE:test_h5out_np1>
             RANKS 3 LABELS h5out unit)
# Two ranks write the file, then the Python check reads it.
string(JOIN " " SSW_H5OUT_MPIEXEC ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG}
       2 ${SSW_MPIEXEC_EXTRA})
ssw_add_test(NAME test_h5out_xarray LABELS h5out
  COMMAND sh -c "${SSW_H5OUT_MPIEXEC} \"$0\" h5out_xarray.h5 && \"$1\" \"$2\" h5out_xarray.h5"
          $<TARGET_FILE:test_h5out_np1> ${SSW_PYTHON}
          ${CMAKE_CURRENT_SOURCE_DIR}/check_xarray.py)
# One source of truth for names: a file the engine writes against
# docs/output.md's tables and the names analysis/ keeps. About 2 s.
ssw_add_test(NAME test_names LABELS h5out TIMEOUT 600
  COMMAND ${SSW_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/test_names.py
          $<TARGET_FILE:sleighsweep> ${CMAKE_SOURCE_DIR})
