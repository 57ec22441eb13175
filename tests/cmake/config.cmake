# Configuration parsing and the 7-D grid.
ssw_add_test(NAME test_config SOURCES test_config.c LABELS config)
target_compile_definitions(test_config PRIVATE
                           SSW_SOURCE_DIR="${CMAKE_SOURCE_DIR}")
ssw_add_test(NAME test_grid SOURCES test_grid.c LABELS config)
# The key table, the scheme table and their documentation (docs/config.md,
# the fuzz dictionary) agree.
ssw_add_test(NAME test_docs SOURCES test_docs.c LABELS config)
target_compile_definitions(test_docs PRIVATE
                           SSW_SOURCE_DIR="${CMAKE_SOURCE_DIR}")
