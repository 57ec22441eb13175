# The driven sleigh (docs/theory/forcing.md): the periodic torque's Hamel
# energy balance, the forced extractor's cycles against the Floquet product
# identity, the small-forcing and growth closed forms and an independent
# integration (test_forced); the forced problem's observed orders are in
# test_forcing.
ssw_add_test(NAME test_forced SOURCES test_forced.c LABELS numerics
             TIMEOUT 900)
# `point` with the forcing options, its JSON names, the refusals, and a
# sweep with forcing on refused (no grid axis yet).
ssw_add_test(NAME test_forced_cli
  COMMAND ${SSW_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/test_forced_cli.py
          $<TARGET_FILE:sleighsweep>
  LABELS numerics)
