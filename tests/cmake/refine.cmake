# Boundary refinement: the core against the closed form on two slices.
ssw_add_test(NAME test_refine SOURCES test_refine.c TIMEOUT 600)
