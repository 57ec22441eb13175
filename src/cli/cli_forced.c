/* `sleighsweep point` under a periodic forcing: the forced extractor's
 * JSON and the path's CSV (docs/output.md, "point under forcing"). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli_internal.h"
#include "sleighsweep/error.h"
#include "sleighsweep/forced.h"

static void pair(FILE *f, const char *key, const double x[2], int comma) {
  fprintf(f, "\"%s\": [", key);
  for (int i = 0; i < 2; i++) {
    if (isfinite(x[i]))
      fprintf(f, "%.17g", x[i]);
    else
      fputs("null", f);
    fputs(i ? "]" : ", ", f);
  }
  fputs(comma ? ", " : "", f);
}

/* The quantities of ssw_forced_q under their JSON names. */
static void quantities(FILE *f, const ssw_forced_q *q) {
  ssw_cli_json_num(f, "mean_omega", q->mean_omega, 1),
      ssw_cli_json_num(f, "mean_v", q->mean_v, 1);
  ssw_cli_json_num(f, "mean_power", q->mean_power, 1);
  ssw_cli_json_num(f, "mean_path_radius", q->mean_path_radius, 1);
  ssw_cli_json_num(f, "amplitude_omega", q->amp_omega, 1);
  ssw_cli_json_num(f, "amplitude_v", q->amp_v, 1);
  pair(f, "floquet_abs", q->floquet_abs, 1);
  pair(f, "floquet_arg", q->floquet_arg, 1);
  pair(f, "lyapunov", q->lyapunov, 1);
  ssw_cli_json_num(f, "energy_growth_slope", q->energy_growth_slope, 0);
}

void ssw_cli_forced_json(FILE *f, const ssw_tensor *t, const ssw_forced *r) {
  ssw_forced_closed a;
  ssw_forced_closed_form(t, r, &a);
  fprintf(f, " \"forcing\": {\"shape\": \"%s\", ",
          r->period > 0 && t->fimp != 0.0 ? "kicks" : "sine");
  ssw_cli_json_num(f, "forcing_freq", t->fomega, 1);
  ssw_cli_json_num(f, "torque_amp", t->fimp != 0.0 ? t->fimp : t->ftau, 1);
  ssw_cli_json_num(f, "forcing_phase", t->fphase, 1);
  if (t->mp != 0.0) {
    ssw_cli_json_num(f, "mass_p", t->mp, 1);
    ssw_cli_json_num(f, "mass_x", t->mx, 1);
    ssw_cli_json_num(f, "mass_y", t->my, 1);
    ssw_cli_json_num(f, "mass_amp", t->mamp, 1);
  }
  ssw_cli_json_num(f, "period", r->period, 0);
  fprintf(f, "},\n \"motion\": \"forced\", \"attractor\": \"%s\", ",
          ssw_attractor_name(r->attractor));
  fprintf(f, "\"cycle_periods\": %d, ", r->cycle_periods);
  quantities(f, &r->q);
  fputs(",\n ", f);
  ssw_cli_json_num(f, "mean_dissipation", r->mean_dissipation, 1);
  ssw_cli_json_num(f, "power_balance", r->power_balance, 1);
  ssw_cli_json_num(f, "lyapunov_sum_defect", r->lyapunov_sum_defect, 1);
  ssw_cli_json_num(f, "lyapunov_divergence", r->lyapunov_divergence, 1);
  pair(f, "cycle_state", (const double[2]){r->cycle_w, r->cycle_v}, 1);
  ssw_cli_json_num(f, "newton_residual", r->newton_residual, 1);
  ssw_cli_json_num(f, "transient_remainder", r->transient_remainder, 1);
  fprintf(f, "\"transient_periods\": %d, \"steps_per_period\": %d, ",
          r->transient_periods, r->steps_per_period);
  ssw_cli_json_num(f, "H0", r->H0, 1);
  fprintf(f,
          "\"steps\": %lld, \"converged\": %s, \"flags\": %d, "
          "\"refinements\": %d,\n",
          (long long)r->steps, r->converged ? "true" : "false", r->flags,
          r->refinements);
  fputs(" \"error_estimate\": {", f);
  quantities(f, &r->err);
  fputs("},\n \"analytic\": {", f);
  ssw_cli_json_num(f, "mean_omega", a.mean_omega, 1),
      ssw_cli_json_num(f, "mean_v", a.mean_v, 1);
  ssw_cli_json_num(f, "mean_path_radius", a.mean_path_radius, 1);
  ssw_cli_json_num(f, "energy_growth_slope", a.energy_growth_slope, 1);
  pair(f, "floquet_abs", a.floquet_abs, 1);
  pair(f, "lyapunov", a.lyapunov, 1);
  ssw_cli_json_num(f, "floquet_product", a.floquet_product, 0);
  fputs("}}\n", f);
}

/* Writes a forced path's rows as `point --trajectory` CSV: the unforced
 * columns (the exact ones NaN: the driven sleigh has no closed-form
 * path), then x_avg, y_avg on the row closing each whole period. */
typedef struct {
  FILE *f;
} csv_out;

static void csv_row(void *ctx, const double q[SSW_FORCED_PATH_NQ],
                    const double avg[2]) {
  FILE *f = ((csv_out *)ctx)->f;
  for (int i = 0; i < SSW_FORCED_PATH_NQ; i++)
    fprintf(f, "%.17g,", q[i]);
  fputs("nan,nan,nan,nan,nan,", f);
  if (avg)
    fprintf(f, "%.17g,%.17g\n", avg[0], avg[1]);
  else
    fputs("nan,nan\n", f);
}

int ssw_cli_forced_csv(FILE *f, const char *path, const ssw_tensor *t,
                       double w0, double v0, const ssw_integrator *o,
                       const ssw_forced *r) {
  csv_out out = {f};
  fputs("t,phi,x,y,omega,v,H,phi_exact,x_exact,y_exact,omega_exact,v_exact,"
        "x_avg,y_avg\n",
        f);
  SSW_CALL(ssw_forced_path(t, w0, v0, o, r->steps_per_period,
                           ssw_forced_path_periods(r), csv_row, &out));
  SSW_CHECK(fflush(f) == 0 && !ferror(f), SSW_ERR_IO,
            "--trajectory: error writing '%s': %s", path, strerror(errno));
  return SSW_SUCCESS;
}
