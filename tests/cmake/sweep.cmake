# The sweep engine end to end under mpirun (issue 3).
ssw_add_test(NAME test_sweep TIMEOUT 600
  COMMAND ${SSW_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/test_sweep.py
          $<TARGET_FILE:sleighsweep>
          ${CMAKE_CURRENT_SOURCE_DIR}/sweep/sweep_small.ini
          ${MPIEXEC_EXECUTABLE})
