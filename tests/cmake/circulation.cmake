# The closed form of the sleigh with circulation against GSL's rk8pd on the
# equations written out in tests/circ_oracle.h (docs/theory/circulation.md).
find_package(GSL QUIET)
if(GSL_FOUND)
  ssw_add_test(NAME test_circulation_closed SOURCES test_circulation_closed.c
               TIMEOUT 600 LABELS numerics)
  target_link_libraries(test_circulation_closed PRIVATE GSL::gsl)
  ssw_add_test(NAME test_circulation_drift SOURCES test_circulation_drift.c
               TIMEOUT 600)
  target_link_libraries(test_circulation_drift PRIVATE GSL::gsl)
endif()
