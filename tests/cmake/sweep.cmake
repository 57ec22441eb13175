# The sweep engine end to end under mpirun.
ssw_add_test(NAME test_sweep TIMEOUT 600
  COMMAND ${SSW_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/test_sweep.py
          $<TARGET_FILE:sleighsweep>
          ${CMAKE_CURRENT_SOURCE_DIR}/sweep/sweep_small.ini
          ${MPIEXEC_EXECUTABLE})
# Reliability: kill -9 a 2-rank sweep at seeded moments, resume.
ssw_add_test(NAME test_kill TIMEOUT 600
  COMMAND ${SSW_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/test_kill.py
          $<TARGET_FILE:sleighsweep>
          ${CMAKE_CURRENT_SOURCE_DIR}/sweep/sweep_kill.ini
          ${MPIEXEC_EXECUTABLE} 8)
# test_kill sends its kills at seeded moments scaled by the wall time of
# its own uninterrupted run: it keeps the machine to itself, so that both
# see the same load. test_sweep's signals follow the reported progress
# (4 of 48 points), like test_resume's: it shares the machine.
set_tests_properties(test_kill PROPERTIES RUN_SERIAL TRUE)
# Disk full mid-sweep; skipped (77) where tmpfs cannot be mounted.
ssw_add_test(NAME test_diskfull TIMEOUT 600
  COMMAND ${SSW_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/test_diskfull.py
          $<TARGET_FILE:sleighsweep>
          ${CMAKE_CURRENT_SOURCE_DIR}/sweep/sweep_small.ini
          ${MPIEXEC_EXECUTABLE})
set_tests_properties(test_diskfull PROPERTIES SKIP_RETURN_CODE 77)
# `sleighsweep status` on a running and on a killed 2-rank sweep. Under
# scripts/sanitize.sh it took 180 s alone on 2 cores at -O0 and 366 s
# beside another test (200 s at -O1; 20 s in the Release build): 600 s.
ssw_add_test(NAME test_status TIMEOUT 600
  COMMAND ${SSW_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/test_status.py
          $<TARGET_FILE:sleighsweep> ${MPIEXEC_EXECUTABLE})
# [body] length_unit / mass_unit in the units attributes, CF Conventions.
ssw_add_test(NAME test_units TIMEOUT 120
  COMMAND ${SSW_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/test_units.py
          $<TARGET_FILE:sleighsweep> ${MPIEXEC_EXECUTABLE})
# `run --dry-run`'s cost estimate against a real run.
ssw_add_test(NAME test_dry_run TIMEOUT 300
  COMMAND ${SSW_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/test_dry_run.py
          $<TARGET_FILE:sleighsweep> ${MPIEXEC_EXECUTABLE})
# Nothing lost, nothing stuck: torn journals,
# kills during creation, stray files, one run per output, signals.
ssw_add_test(NAME test_resume TIMEOUT 600
  COMMAND ${SSW_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/test_resume.py
          $<TARGET_FILE:sleighsweep>
          ${CMAKE_CURRENT_SOURCE_DIR}/sweep/sweep_small.ini
          ${MPIEXEC_EXECUTABLE})
# Its signals are tied to reported progress, not to wall time: it can share
# the machine. Label durability: left out of scripts/sanitize.sh (5 min there).
set_tests_properties(test_resume PROPERTIES LABELS durability)
# SIGKILL injected at write/pwrite64/fdatasync/rename system calls of rank 0
# and of a worker (strace), resumed by the same command: first,
# middle and last call of each kind here; 40 per kind with SSW_LONG_TESTS.
ssw_add_test(NAME test_syskill TIMEOUT 900
  COMMAND ${SSW_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/test_syskill.py
          $<TARGET_FILE:sleighsweep>
          ${CMAKE_CURRENT_SOURCE_DIR}/sweep/sweep_small.ini
          ${MPIEXEC_EXECUTABLE} short)
set_tests_properties(test_syskill PROPERTIES SKIP_RETURN_CODE 77
                     LABELS durability)
if(SSW_LONG_TESTS)
  ssw_add_test(NAME test_syskill_long TIMEOUT 7200
    COMMAND ${SSW_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/test_syskill.py
            $<TARGET_FILE:sleighsweep>
            ${CMAKE_CURRENT_SOURCE_DIR}/sweep/sweep_small.ini
            ${MPIEXEC_EXECUTABLE} long)
  set_tests_properties(test_syskill_long PROPERTIES SKIP_RETURN_CODE 77
                       LABELS "durability;long")
endif()
# point's energy domain: an overflowing energy is refused
# naming what overflows; a subnormal velocity is a number.
add_test(NAME point_energy_overflow
  COMMAND $<TARGET_FILE:sleighsweep> point --omega0 1e300)
add_test(NAME point_subnormal_omega
  COMMAND $<TARGET_FILE:sleighsweep> point --omega0 1e-320)
set_tests_properties(point_energy_overflow PROPERTIES
  PASS_REGULAR_EXPRESSION "initial energy .* is about 1e\\+599, outside")
set_tests_properties(point_subnormal_omega PROPERTIES
  PASS_REGULAR_EXPRESSION "\"converged\": true")
# A sweep with circulation: periodic and two-arc points against the theory.
ssw_add_test(NAME test_circulation_sweep TIMEOUT 300
  COMMAND ${SSW_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/test_circulation_sweep.py
          $<TARGET_FILE:sleighsweep> ${MPIEXEC_EXECUTABLE} LABELS numerics)
# Work handed out ahead: every rank starts with a unit it did not ask for
# (rank 0 computing or only scheduling), byte-identical to 1 rank; a stop
# by a signal to rank 0 and a resume on another rank count compute every
# point once (/segments).
ssw_add_test(NAME test_sweep_first_units TIMEOUT 600
  COMMAND ${SSW_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/test_sweep_first_units.py
          $<TARGET_FILE:sleighsweep> ${MPIEXEC_EXECUTABLE})
# Gamma and energy as grid axes: every point of a (Gamma, energy) sweep is
# bit-identical to the single-valued run at its values; dimensions,
# coordinates and root attributes as docs/output.md says.
ssw_add_test(NAME test_run_axes TIMEOUT 600
  COMMAND ${SSW_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/test_run_axes.py
          $<TARGET_FILE:sleighsweep> ${MPIEXEC_EXECUTABLE} LABELS numerics)
# A sweep with drag: the exact C = c K rest and the rest's eigenvalues
# (with circulation: nodes and foci) against formulas in the test.
ssw_add_test(NAME test_drag_sweep TIMEOUT 300
  COMMAND ${SSW_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/test_drag_sweep.py
          $<TARGET_FILE:sleighsweep> ${MPIEXEC_EXECUTABLE} LABELS numerics)
# Complete means readable: SIGKILL at the pwrite64/fsync calls of a [refine]
# sweep's final phase (rank 0 and the worker; strace), then status and the
# same command; a complete file with /boundaries removed or damaged, and
# one with a damaged grid and no journals. About 25 kills (1.5-3 min); every
# call of the phase (about 150) with SSW_LONG_TESTS.
ssw_add_test(NAME test_finalkill TIMEOUT 900
  COMMAND ${SSW_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/test_finalkill.py
          $<TARGET_FILE:sleighsweep> ${MPIEXEC_EXECUTABLE} short)
set_tests_properties(test_finalkill PROPERTIES SKIP_RETURN_CODE 77
                     LABELS durability)
if(SSW_LONG_TESTS)
  ssw_add_test(NAME test_finalkill_long TIMEOUT 3600
    COMMAND ${SSW_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/test_finalkill.py
            $<TARGET_FILE:sleighsweep> ${MPIEXEC_EXECUTABLE} long)
  set_tests_properties(test_finalkill_long PROPERTIES SKIP_RETURN_CODE 77
                       LABELS "durability;long")
endif()
# `status` and a rerun on files left by runs that ended badly: a
# points_total that is no count, a killed run's rate (no ETA), a killed
# run's recovered points in a /segments row. About 10 s.
ssw_add_test(NAME test_status_cases TIMEOUT 300
  COMMAND ${SSW_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/test_status_cases.py
          $<TARGET_FILE:sleighsweep> ${MPIEXEC_EXECUTABLE})
