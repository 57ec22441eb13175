/* `run --dry-run`: what a run of a config would do, without doing it:
 * the run's own decision about its output (plan.c), the grid's check, and
 * its cost measured on a few grid points; printed on standard output by
 * rank 0 (sweep.c). */
#include <math.h>
#include <stdio.h>
#include <time.h>

#include "sleighsweep/config.h"
#include "sleighsweep/ensemble.h"
#include "sleighsweep/error.h"
#include "sleighsweep/grid.h"
#include "sleighsweep/h5out.h"
#include "sleighsweep/journal.h"
#include "sleighsweep/plan.h"
#include "sleighsweep/point.h"
#include "sleighsweep/preview.h"
#include "sleighsweep/runlock.h"
#include "sleighsweep/sweep.h"

/* Steps and time per trajectory measured on a few grid points (rank 0):
 * the CPU time of the calling thread, which integrates the probes alone,
 * so that other processes on a busy node do not inflate the estimate as
 * wall time would. */
static double cpu_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Probes of the dry run: grid points spread over the whole grid by the
 * golden-ratio sequence (not its corners, which are often the cheapest
 * bodies), trajectories 0..PROBE_TRAJ-1 of each, exactly as the run will
 * integrate them: the step count is deterministic. */
#define PROBE_POINTS 32
#define PROBE_TRAJ 4

/* What the run would do with its output: the run's own decision
 * (src/sweep/plan.c), a refusal included, and whether another run holds it. */
static void print_plan(const ssw_config *cfg, const ssw_sweep_opts *so,
                       int ranks) {
  char holder[256], lock[4200];
  long pid;
  printf("output:              %s\n", cfg->file); /* absolute: config.h */
  const char *would = "the run would:      ";
  if (ssw_runlock_probe(cfg->file, &pid, holder, sizeof holder, lock,
                        sizeof lock) == 1) {
    printf("%s refuse to start (exit status 2): the output is in use by "
           "another run (%s; lock '%s')\n",
           would, holder[0] ? holder : "holder unknown", lock);
    return;
  }
  const ssw_plan_opts po = {so->config, so->overwrite, ranks, 1};
  ssw_plan p;
  ssw_journal_set set;
  const int rc = ssw_plan_output(cfg, &po, &p, &set);
  ssw_journal_set_free(&set);
  const unsigned long long total = p.total, file = p.in_file,
                           jour = p.in_journals, done = file + jour;
  if (rc != SSW_SUCCESS)
    printf("%s refuse to start (exit status %d): %s\n", would,
           ssw_error_exit_status(rc), ssw_error_user_message());
  else if (p.kind == SSW_PLAN_COMPLETE)
    printf("%s find it complete (%llu points): nothing to compute\n", would,
           total);
  else if (p.kind == SSW_PLAN_RESUME)
    printf("%s resume it: %llu of %llu points done (%llu in the file, %llu "
           "in journals), %llu to compute\n",
           would, done, total, file, jour, total - done);
  else if (p.kind == SSW_PLAN_REBUILD)
    printf("%s rebuild it from its journals (%s): %llu of %llu points "
           "done, %llu to compute\n",
           would, p.why, jour, total, total - jour);
  else if (p.kind == SSW_PLAN_OVERWRITE)
    printf("%s overwrite it\n", would);
  else if (jour)
    printf("%s create it and refill %llu point(s) from its journals\n", would,
           jour);
  else
    printf("%s create it\n", would);
  ssw_error_clear();
}

/* The grid's size as the product of its swept axes; the axes of one value
 * are counted (ssw_config_print_axes lists every axis below). */
static void print_grid_size(const ssw_config *cfg, uint64_t n) {
  printf("grid points:         %llu (", (unsigned long long)n);
  int swept = 0;
  for (int a = 0; a < SSW_NAXES; a++)
    if (cfg->axes[a].n > 1)
      printf("%s%s %d", swept++ ? " x " : "", ssw_axis_names[a],
             cfg->axes[a].n);
  printf("%s%d axes of one value)\n", swept ? "; " : "", SSW_NAXES - swept);
}

/* The grid check: every point, or on a large grid a sub-grid of it, with
 * the time the run's check of every point will take. */
static void print_check(const ssw_config *cfg, const ssw_preview_check *c) {
  const uint64_t n = ssw_grid_size(cfg->axes);
  if (c->checked == n) {
    printf("grid check:          every point valid\n");
    return;
  }
  printf("grid check:          %llu of %llu points valid (every axis's ends "
         "and evenly spaced values); the run checks every point before it "
         "starts (about %.0f s here)\n",
         (unsigned long long)c->checked, (unsigned long long)n,
         c->seconds / (double)c->checked * (double)n);
}

int ssw_sweep_dry_run(const ssw_config *cfg, const ssw_sweep_opts *so,
                      int ranks) {
  ssw_preview_check check;
  SSW_CALL(ssw_preview_validate(cfg, &check));
  const uint64_t n = ssw_grid_size(cfg->axes);
  const int probes = n < PROBE_POINTS ? (int)n : PROBE_POINTS;
  ssw_ensemble_spec sp;
  ssw_config_ensemble(cfg, &sp);
  const ssw_integrator o = sp.integ;
  double sum = 0, sum2 = 0, secs = 0;
  int count = 0;
  for (int k = 0; k < probes; k++) {
    const double u = fmod(0.5 + k * 0.6180339887498949, 1.0);
    const uint64_t idx =
        probes == (int)n ? (uint64_t)k : (uint64_t)(u * (double)n) % n;
    ssw_grid_values v;
    ssw_point pt;
    ssw_grid_values_at(cfg->axes, idx, &v);
    ssw_grid_values_apply(&v, &sp.body); /* the point's run values */
    sp.energy = v.energy;
    SSW_CALL(ssw_point_setup(&sp.body, &v.body, cfg->zero_tol, o.method, &pt));
    ssw_point_set_energy(&pt, v.energy);
    double w0[PROBE_TRAJ], v0[PROBE_TRAJ];
    ssw_traj r[PROBE_TRAJ];
    const int m =
        cfg->trajectories < PROBE_TRAJ ? cfg->trajectories : PROBE_TRAJ;
    for (int j = 0; j < m; j++)
      ssw_ensemble_initial(&sp, &pt.tensor, v.key, j, &w0[j], &v0[j]);
    const double t0 = cpu_seconds();
    SSW_CALL(ssw_point_trajectories(&pt, m, w0, v0, &o, NULL, NULL, r));
    secs += cpu_seconds() - t0;
    /* The point's mean, as the file's steps_mean will hold it. */
    double mean = 0;
    for (int j = 0; j < m; j++)
      mean += (double)r[j].steps / m;
    sum += mean, sum2 += mean * mean;
    count += m;
  }
  const double mean = probes ? sum / probes : 0.0;
  const double sd =
      probes > 1 ? sqrt(fmax(0.0, (sum2 - sum * mean) / (probes - 1))) : 0.0;
  const double traj = (double)n * cfg->trajectories;
  const double bytes = ssw_h5out_estimate_bytes(cfg);
  printf("config:              %s\n", cfg->path);
  print_plan(cfg, so, ranks);
  print_grid_size(cfg, n);
  ssw_config_print_axes(cfg, stdout);
  print_check(cfg, &check);
  printf("trajectories:        %d per point, %.6g in all\n", cfg->trajectories,
         traj);
  if (cfg->integ.rtol > 0)
    printf("scheme:              %s, rtol %g (adaptive steps)\n",
           cfg->integ.method->name, cfg->integ.rtol);
  else
    printf("scheme:              %s, eta %g (fixed steps)\n",
           cfg->integ.method->name, cfg->integ.eta);
  if (count > 0) {
    /* The probes' spread: the whole grid's mean lies within about two
     * standard errors of theirs (docs: within a factor 1.5 in the tests). */
    const double se = sd / sqrt((double)probes);
    printf("steps per traj.:     %.0f +- %.0f (mean of %d grid points x %d "
           "trajectories; +- two standard errors)\n",
           mean, 2 * se, probes, count / probes);
    printf("estimated steps:     %.3g (%.3g to %.3g)\n", mean * traj,
           fmax(0.0, mean - 2 * se) * traj, (mean + 2 * se) * traj);
    printf("estimated core time: %.3g core-hours (%.3g CPU s per trajectory "
           "measured here; varies with the machine)\n",
           secs / count * traj / 3600.0, secs / count);
  }
  printf("output size:         %.3g MB\n", bytes / 1e6);
  if (cfg->samples > 0)
    printf("sample paths:        %d per point at %zu of %llu grid points "
           "([output] sample_points), %d rows each\n",
           (int)cfg->samples, cfg->sample_sel.n, (unsigned long long)n,
           (int)cfg->sample_nodes);
  return SSW_SUCCESS;
}
