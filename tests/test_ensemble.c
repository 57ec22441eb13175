/* An error raised on an OpenMP worker thread reaches the caller: the first
 * failing batch by index carries its code and message, whatever thread ran
 * it and however many threads there are. */
#include <omp.h>
#include <string.h>

#include "sleighsweep/ensemble.h"
#include "sleighsweep/error.h"
#include "sleighsweep/result.h"
#include "test_util.h"

int main(void) {
  /* The grid point sets up (the pipeline does not check the integrator),
   * then every batch's extraction refuses the settings on its thread. */
  ssw_ensemble_spec sp = {.body = SEED_BODY,
                          .zero_tol = SSW_ZERO_TOL_DEFAULT,
                          .trajectories = 64,
                          .seed = 1,
                          .ic = SSW_IC_RANDOM,
                          .energy = 0.5};
  ssw_integrator_defaults(&sp.integ);
  sp.integ.max_steps = 10; /* below the accepted 100 */
  const ssw_grid_values p = {.body = SEED_PARAMS(0.0), .energy = 0.5};
  for (int threads = 1; threads <= 4; threads *= 2) {
    omp_set_num_threads(threads);
    ssw_ensemble *e = NULL;
    EXPECT(ssw_ensemble_create(&sp, &e) == SSW_SUCCESS, "create");
    ssw_point_result res;
    ssw_error_clear();
    const int rc = ssw_ensemble_run(e, 0, &p, 0, &res, NULL);
    EXPECT(rc == SSW_ERR_ARG, "%d threads: code %d, expected %d", threads, rc,
           SSW_ERR_ARG);
    EXPECT(strstr(ssw_error_message(), "max_steps = 10 must be >= 100"),
           "%d threads: message '%s'", threads, ssw_error_message());
    ssw_ensemble_destroy(&e);
  }
  return TEST_RESULT();
}
