/* The cost-to-accuracy part of the benchmark (docs/benchmark.md), internal
 * to tests/bench: bench_kernels.c searches the settings and times the runs,
 * bench_kernels_report.c prints the tables and writes the JSON. */
#ifndef SSW_BENCH_KERNELS_H
#define SSW_BENCH_KERNELS_H

#include <gsl/gsl_odeiv2.h>

#include "bench.h"
#include "sleighsweep/analytic.h"
#include "sleighsweep/extract.h"
#include "sleighsweep/model.h"
#include "sleighsweep/stepper.h"

/* Stopping tolerance |L1 w + Z v| <= TOL g_max (ssw_integrator.tol) of
 * every method, so that steps compare across methods and with the earlier
 * tables of docs/benchmark.md. Not the engine's default: that is derived
 * from rtol (ssw_integrator_stop_tol; 1e-7 at SSW_RTOL_DEFAULT), or
 * SSW_TOL_FIXED_DEFAULT with a fixed step. */
#define STOP_TOL 1e-6
#define NT 3
/* Accuracy targets: relative error in d (and their JSON names). */
extern const double targets[NT];
extern const char *const target_names[NT];
#define MAXROUNDS 15

/* Cases: the seed body and random bodies (as tests/test_extract.c). */
typedef struct {
  char label[24];
  ssw_tensor t;
  int regime;
  ssw_analytic an;
  double w0, v0;
  ssw_coeffs c;
} bcase;

/* Methods: the engine's schemes and GSL's steppers (mdefs in
 * bench_kernels.c, NM of them). */
enum { KIND_ENGINE = 0, KIND_GSL = 1 };

typedef struct {
  const char *label, *key;
  int kind;
  const char *scheme; /* engine scheme name */
  int recon;
  const gsl_odeiv2_step_type *const *gtype;
  const ssw_method *m; /* resolved at start */
} mdef;

enum { NM = 11 };
extern mdef mdefs[NM];
#define M_H6 2 /* hamel6 exp */
#define M_H8 3 /* hamel8 exp: the defaults of ssw_integrator_defaults */
#define M_RK8PD 9

static inline int is_hamel(int mi) { return mi < 8; }

/* One evaluation: relative error in d and the work it took. */
typedef struct {
  int ok;     /* converged, finite */
  int capped; /* stopped by the step cap */
  double d, err;
  double steps; /* engine: base steps (ssw_traj.steps, with the peak
                   refinement); GSL: accepted steps */
  double nfev;  /* right-hand-side evaluations (engine: base steps for the
                   Hamel methods, 4 per RK4 step) */
} eres;

/* The largest step setting reaching one target. */
typedef struct {
  int found;  /* target reached within the scan */
  int capped; /* reached at the largest allowed setting (eta = 2) */
  double x;   /* eta, or GSL rtol = atol */
  eres r;
} sres;

/* One timed setting: a case, a method and its step. */
typedef struct {
  const bcase *c;
  const mdef *m;
  double x;
  long k;                   /* calls per sample */
  double ns[MAXROUNDS];     /* ns per trajectory, per round (wall clock) */
  double cpu_ns[MAXROUNDS]; /* the same in thread CPU time */
} tjob;

typedef struct {
  sres s[NT];
  tjob *job[NT];
} cell; /* one case x method */

typedef struct {
  int found;
  double x, maxerr;
  double *steps; /* per body */
  tjob **job;    /* per body */
} uniform_cell;  /* one method x target over the batch */

/* Everything one run of the part measures. */
typedef struct {
  const bench_opts *o;
  int rounds;
  bcase *cases; /* the seed case, then nb random bodies */
  int nc, nb;
  cell *cells;       /* nc x NM */
  uniform_cell *uni; /* NM x NT */
  tjob *jobs;
  int nj;
  double t_search, t_total; /* seconds */
  double load_timing, cpu_share;
  long samples, retaken;
  double kns[NM];                           /* kernel ns per base step */
  double med_us[NM][NT], med_ratio[NM][NT]; /* random bodies, medians */
} kctx;

/* What is measured, printed before the search. */
void kernels_intro(const kctx *kc);
/* The tables on stdout and the `"kernels": {...}` JSON member. */
void kernels_report(kctx *kc, sbuf *json);

#endif
