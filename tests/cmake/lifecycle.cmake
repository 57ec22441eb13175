# A sweep's life cycle: `run --print-output`,
# a finished sweep re-run is a no-op, flush epochs keep their interval.
ssw_add_test(NAME test_lifecycle TIMEOUT 300
  COMMAND ${SSW_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/test_lifecycle.py
          $<TARGET_FILE:sleighsweep>
          ${CMAKE_CURRENT_SOURCE_DIR}/sweep/sweep_small.ini
          ${MPIEXEC_EXECUTABLE})
# Epochs on a cheap-then-dear sweep: 2 ranks bit for bit 1 rank; the epoch
# gaps are printed, not asserted (tests/test_epochs.py --assert-timing
# measures them on an idle machine). Label scheduling: left out of the
# sanitizer run (scripts/sanitize.sh), whose engine only slows it.
ssw_add_test(NAME test_epochs TIMEOUT 300 LABELS scheduling
  COMMAND ${SSW_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/test_epochs.py
          $<TARGET_FILE:sleighsweep> ${MPIEXEC_EXECUTABLE})
