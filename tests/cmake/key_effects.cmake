# Every config key has the effect its docs promise (a
# sweep's [integrator] rtol was parsed and then ignored). The declarations
# are in test_key_effects.c, one or more per key of the key table.
# test_key_effects_table: every key has one and every one is of a key,
# ssw_config_compare refuses exactly the values declared refused, and a
# default written out means the default (in-process, instant).
ssw_add_test(NAME test_key_effects_table SOURCES test_key_effects.c
             LABELS config)
target_include_directories(test_key_effects_table PRIVATE
                           ${CMAKE_SOURCE_DIR}/src/config)
# test_key_effects: a 2-point sweep per declared value, its output checked
# against the declaration, and a resume of the base's output with it. About
# 30 s, 70 runs of one rank (label durability: resume refusals, left out of
# the sanitizer run like test_resume_meaning; 3 s of leak checking each).
ssw_add_test(NAME test_key_effects TIMEOUT 300 LABELS config durability
  COMMAND ${SSW_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/test_key_effects.py
          $<TARGET_FILE:test_key_effects_table> $<TARGET_FILE:sleighsweep>
          ${MPIEXEC_EXECUTABLE})
