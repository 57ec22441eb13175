# Core numerics: model, closed form, stepper, extraction, CLI.
ssw_add_test(NAME test_model SOURCES test_model.c)
ssw_add_test(NAME test_stepper SOURCES test_stepper.c)
ssw_add_test(NAME test_extract SOURCES test_extract.c)
ssw_add_test(NAME test_cli_point
  COMMAND ${SSW_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/test_cli_point.py
          $<TARGET_FILE:sleighsweep>)
# Command-line messages (issue 12 item 13): did-you-mean, missing values,
# --help of methods and figures.sh, numbers as the user wrote them.
ssw_add_test(NAME test_cli_messages
  COMMAND ${SSW_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/test_cli_messages.py
          $<TARGET_FILE:sleighsweep> ${CMAKE_SOURCE_DIR}
          ${MPIEXEC_EXECUTABLE})
