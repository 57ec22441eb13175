# Installation (cmake/install.cmake): install into a temporary prefix, run a
# tiny sweep with the installed engine and a figure with the installed
# analysis scripts. About 3 s.
ssw_add_test(NAME test_install TIMEOUT 120
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/test_install.sh ${CMAKE_BINARY_DIR}
          ${MPIEXEC_EXECUTABLE} ${SSW_PYTHON})
