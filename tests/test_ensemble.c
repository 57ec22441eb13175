/* An error raised on an OpenMP worker thread reaches the caller: the first
 * failing batch by index carries its code and message, whatever thread ran
 * it and however many threads there are. */
#include <omp.h>
#include <string.h>

#include "sleighsweep/config.h"
#include "sleighsweep/ensemble.h"
#include "sleighsweep/error.h"
#include "sleighsweep/result.h"
#include "test_util.h"

int main(void) {
  /* RATTLE needs a positive definite 3x3 tensor; I0 = 0 on a dry plane has
   * regular reduced dynamics but a singular tensor: every batch fails. */
  static const char text[] =
      "[body]\nm = 1\nI0 = 0\nrho = 0\n[grid]\ntheta = 1\na = 0.5\n"
      "A = 0.5\nB = 0.3\n[ensemble]\ntrajectories = 64\n"
      "[integrator]\nscheme = rattle\neta = 0.5\n";
  ssw_config *cfg = NULL;
  EXPECT(ssw_config_parse(text, "threads.ini", &cfg) == SSW_SUCCESS,
         "config: %s", ssw_error_message());
  if (!cfg) return TEST_RESULT();
  for (int threads = 1; threads <= 4; threads *= 2) {
    omp_set_num_threads(threads);
    ssw_ensemble *e = NULL;
    EXPECT(ssw_ensemble_create(cfg, &e) == SSW_SUCCESS, "create");
    ssw_point_result res;
    ssw_error_clear();
    const int rc = ssw_ensemble_run(e, 0, &res, NULL);
    EXPECT(rc == SSW_ERR_ARG, "%d threads: code %d, expected %d", threads, rc,
           SSW_ERR_ARG);
    EXPECT(strstr(ssw_error_message(), "rattle needs a positive definite"),
           "%d threads: message '%s'", threads, ssw_error_message());
    ssw_ensemble_destroy(&e);
  }
  ssw_config_destroy(&cfg);
  return TEST_RESULT();
}
