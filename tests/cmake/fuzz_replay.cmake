# The fuzz target's regression inputs and seed corpus (tests/fuzz), replayed
# by a plain driver: no libFuzzer, any compiler, ASan under
# scripts/sanitize.sh. `fuzz_config_replay FILE...` reproduces one input.
if(EXISTS ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/replay.c)
  add_executable(fuzz_config_replay fuzz/replay.c fuzz/fuzz_config.c)
  target_link_libraries(fuzz_config_replay PRIVATE sleighsweep_core)
  ssw_add_test(NAME test_fuzz_replay LABELS config fuzz
    COMMAND $<TARGET_FILE:fuzz_config_replay>
            ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/regressions
            ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/corpus)
endif()
# The journal fuzz target's seeds, replayed the same way.
if(EXISTS ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/fuzz_journal.c)
  add_executable(fuzz_journal_replay fuzz/replay.c fuzz/fuzz_journal.c)
  target_link_libraries(fuzz_journal_replay PRIVATE sleighsweep_core)
  ssw_add_test(NAME test_fuzz_journal_replay LABELS fuzz
    COMMAND $<TARGET_FILE:fuzz_journal_replay>
            ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/journal_corpus)
endif()
