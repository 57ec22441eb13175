# SLURM: each script starts its own single-node slurmctld/slurmd
# (installing slurm-wlm and munge if missing), submits jobs and stops the
# daemons it started. Exit 77 = skipped (not root, or no apt). They time
# against the whole node (the time-limit signal), so they run alone.
foreach(t test_slurm_smoke test_sbatch_flow test_slurm_sweep)
  ssw_add_test(NAME slurm_${t}
               COMMAND bash ${CMAKE_SOURCE_DIR}/tests/slurm/${t}.sh
               LABELS slurm TIMEOUT 900
               ENV SLEIGHSWEEP=$<TARGET_FILE:sleighsweep> SSW_PYTHON=${SSW_PYTHON})
  set_tests_properties(slurm_${t} PROPERTIES SKIP_RETURN_CODE 77
                       RUN_SERIAL TRUE)
endforeach()
