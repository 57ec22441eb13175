# The angle grammar: C (src/config/angle.c) and Python (analysis/sswfile.py) agree.
add_executable(angle_echo angle_echo.c)
target_link_libraries(angle_echo PRIVATE sleighsweep_core)
ssw_add_test(NAME test_angle LABELS config
             COMMAND ${SSW_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/test_angle.py
                     $<TARGET_FILE:angle_echo> $<TARGET_FILE:sleighsweep>
                     ${MPIEXEC_EXECUTABLE})
