# A resume compares the config's meaning, not its text:
# a comment-only change resumes, a changed value is refused naming the key,
# from the file and from a journal. About 15 s (label durability: a resume
# test, left out of the sanitizer run like test_resume).
ssw_add_test(NAME test_resume_meaning TIMEOUT 300 LABELS config durability
  COMMAND ${SSW_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/test_resume_meaning.py
          $<TARGET_FILE:sleighsweep>
          ${CMAKE_CURRENT_SOURCE_DIR}/sweep/sweep_small.ini
          ${MPIEXEC_EXECUTABLE})
# A relative [output] file is relative to the config's directory, from any
# current directory. About 3 s.
ssw_add_test(NAME test_output_paths TIMEOUT 120 LABELS config
  COMMAND ${SSW_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/test_output_paths.py
          $<TARGET_FILE:sleighsweep>
          ${CMAKE_CURRENT_SOURCE_DIR}/sweep/sweep_small.ini
          ${MPIEXEC_EXECUTABLE})
