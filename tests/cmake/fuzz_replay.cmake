# The fuzz target's regression inputs and seed corpus, replayed by a plain
# driver (no libFuzzer, any compiler; under scripts/sanitize.sh with ASan).
add_executable(fuzz_config_replay fuzz/replay.c fuzz/fuzz_config.c)
target_link_libraries(fuzz_config_replay PRIVATE sleighsweep_core)
ssw_add_test(NAME test_fuzz_replay LABELS config fuzz
  COMMAND $<TARGET_FILE:fuzz_config_replay>
          ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/regressions
          ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/corpus)
