# A sweep's life cycle: `run --print-output`,
# a finished sweep re-run is a no-op, flush epochs keep their interval.
ssw_add_test(NAME test_lifecycle TIMEOUT 300
  COMMAND ${SSW_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/test_lifecycle.py
          $<TARGET_FILE:sleighsweep>
          ${CMAKE_CURRENT_SOURCE_DIR}/sweep/sweep_small.ini
          ${MPIEXEC_EXECUTABLE})
# Timing: epochs measured against flush_interval; keep the machine to itself.
# Label timing: left out of the sanitizer run (scripts/sanitize.sh).
ssw_add_test(NAME test_epochs TIMEOUT 300 LABELS timing
  COMMAND ${SSW_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/test_epochs.py
          $<TARGET_FILE:sleighsweep> ${MPIEXEC_EXECUTABLE})
set_tests_properties(test_epochs PROPERTIES RUN_SERIAL TRUE)
