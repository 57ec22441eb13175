# The sweep engine end to end under mpirun (issue 3).
ssw_add_test(NAME test_sweep TIMEOUT 600
  COMMAND ${SSW_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/test_sweep.py
          $<TARGET_FILE:sleighsweep>
          ${CMAKE_CURRENT_SOURCE_DIR}/sweep/sweep_small.ini
          ${MPIEXEC_EXECUTABLE})
# Reliability (issue 6): kill -9 a 2-rank sweep at seeded moments, resume.
ssw_add_test(NAME test_kill TIMEOUT 600
  COMMAND ${SSW_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/test_kill.py
          $<TARGET_FILE:sleighsweep>
          ${CMAKE_CURRENT_SOURCE_DIR}/sweep/sweep_kill.ini
          ${MPIEXEC_EXECUTABLE} 8)
# Both send signals at moments tied to the run's progress or wall time:
# keep the machine to themselves.
set_tests_properties(test_sweep test_kill PROPERTIES RUN_SERIAL TRUE)
# Disk full mid-sweep (issue 6); skipped (77) where tmpfs cannot be mounted.
ssw_add_test(NAME test_diskfull TIMEOUT 600
  COMMAND ${SSW_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/test_diskfull.py
          $<TARGET_FILE:sleighsweep>
          ${CMAKE_CURRENT_SOURCE_DIR}/sweep/sweep_small.ini
          ${MPIEXEC_EXECUTABLE})
set_tests_properties(test_diskfull PROPERTIES SKIP_RETURN_CODE 77)
# `sleighsweep status` on a running and on a killed 2-rank sweep (issue 12).
ssw_add_test(NAME test_status TIMEOUT 300
  COMMAND ${SSW_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/test_status.py
          $<TARGET_FILE:sleighsweep> ${MPIEXEC_EXECUTABLE})
# [body] length_unit / mass_unit in the units attributes, CF Conventions.
ssw_add_test(NAME test_units TIMEOUT 120
  COMMAND ${SSW_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/test_units.py
          $<TARGET_FILE:sleighsweep> ${MPIEXEC_EXECUTABLE})
# `run --dry-run`'s cost estimate against a real run (issue 12 item 8).
ssw_add_test(NAME test_dry_run TIMEOUT 300
  COMMAND ${SSW_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/test_dry_run.py
          $<TARGET_FILE:sleighsweep> ${MPIEXEC_EXECUTABLE})
