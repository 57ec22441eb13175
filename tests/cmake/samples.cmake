# Sample trajectories: dense output at even times, chosen grid points.
ssw_add_test(NAME test_path_dense SOURCES test_path_dense.c LABELS numerics)
ssw_add_test(NAME test_sample_points SOURCES test_sample_points.c LABELS config)
ssw_add_test(NAME test_journal_kinds SOURCES test_journal_kinds.c LABELS durability)
