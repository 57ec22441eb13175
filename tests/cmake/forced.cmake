# The driven sleigh (docs/theory/forcing.md): the periodic torque's Hamel
# energy balance, the forced extractor's cycles against the Floquet product
# identity, the small-forcing and growth closed forms and an independent
# integration (test_forced); the forced problem's observed orders are in
# test_forcing.
ssw_add_test(NAME test_forced SOURCES test_forced.c LABELS numerics
             TIMEOUT 900)
# `point` with the forcing options, its JSON names, the refusals, and a
# sweep's refusals with forcing (samples; torque without frequency).
ssw_add_test(NAME test_forced_cli
  COMMAND ${SSW_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/test_forced_cli.py
          $<TARGET_FILE:sleighsweep>
  LABELS numerics)
# `point --trajectory` under forcing: the path's CSV against its JSON
# (mean heading rate and speed over the last cycle, the cycle's rigid
# repetition, Simpson's displacement, the period averages, the kicks' work,
# the growth slope from the CSV's H; test_forced_path).
ssw_add_test(NAME test_forced_path
  COMMAND ${SSW_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/test_forced_path.py
          $<TARGET_FILE:sleighsweep>
  LABELS numerics)
# The moving internal mass: the resting mass against the tensor with it
# added, the step's symmetry, every scheme's order, eq. 6's small-amplitude
# law, the Floquet product with K(t), the power balance and a seeded batch
# against dopri5 (test_mass); its `point` options (test_mass_cli).
ssw_add_test(NAME test_mass SOURCES test_mass.c LABELS numerics TIMEOUT 300)
ssw_add_test(NAME test_mass_cli
  COMMAND ${SSW_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/test_mass_cli.py
          $<TARGET_FILE:sleighsweep>
  LABELS numerics)
# Kicks with C = c K: the forced extractor's cycle means and multipliers
# against the exact period map's (closed forms, kicked.c) on a seeded
# batch, the map's own multipliers against eq. 2, NaN where it does not
# apply (test_kicked).
ssw_add_test(NAME test_kicked SOURCES test_kicked.c LABELS numerics
             TIMEOUT 300)
# A (forcing_freq, torque_amp) sweep: attractors, the closed forms beside
# the measurements, `point` on one of its points, 2 ranks x 2 threads and a
# kill -9 mid-run with its resume bit-identical to 1 rank.
ssw_add_test(NAME test_forced_sweep TIMEOUT 300
  COMMAND ${SSW_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/test_forced_sweep.py
          $<TARGET_FILE:sleighsweep> ${MPIEXEC_EXECUTABLE}
  LABELS numerics)
# The Lyapunov spectrum: the sum identity and the cycles' Floquet moduli
# on a wide seeded batch, the kicked bodies' exact map (test_lyapunov).
ssw_add_test(NAME test_lyapunov SOURCES test_lyapunov.c LABELS numerics
             TIMEOUT 300)
# The rest as a forced attractor: a static mass's multipliers against the
# linear system's exact ones on a wide seeded batch, the sum identity, a
# mass across the blade at x = 0, a torque never at rest (test_forced_rest).
ssw_add_test(NAME test_forced_rest SOURCES test_forced_rest.c
             LABELS numerics unit)
# The classes from the exponents and the census's matcher on synthetic
# inputs (test_census).
ssw_add_test(NAME test_census SOURCES test_census.c LABELS numerics)
# The census of a sweep: shares summing to one, mirror cycles, 2 ranks and
# a kill and resume bit-identical to 1 rank, a bistable point against its
# initial states integrated one by one (test_census_sweep).
ssw_add_test(NAME test_census_sweep TIMEOUT 600
  COMMAND ${SSW_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/test_census_sweep.py
          $<TARGET_FILE:sleighsweep> ${MPIEXEC_EXECUTABLE}
  LABELS numerics)
