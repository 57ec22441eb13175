/* Benchmark of sleighsweep (tests/bench): cost to accuracy of the Hamel
 * integrators against GSL on the same equations, stopping rule and
 * extraction, and sweep-level throughput of `sleighsweep run`.
 * See docs/benchmark.md. */
#ifndef SSW_BENCH_H
#define SSW_BENCH_H

#include <stddef.h>
#include <stdio.h>

/* Settings of one benchmark run (smoke or full). */
typedef struct {
  int smoke;          /* 1: seconds-long CTest mode */
  int quick;          /* 1: accuracy-and-cost summary only (< 60 s) */
  int kernels, sweep; /* which parts run */
  int scaling;        /* the sweep part's 1-2 ranks x 1-2 threads runs */
  int batch;          /* random bodies in the batch */
  int rounds;         /* timing rounds (median over them) */
  double min_time;    /* seconds per timed sample (repeat calls) */
  int bisect;         /* bisection steps of the eta / tol search */
  double step_cap;    /* largest base steps per trajectory searched */
  /* sweep */
  const char *engine;  /* sleighsweep binary */
  const char *mpiexec; /* mpirun */
  const char *shim;    /* LD_PRELOAD library timing MPI point-to-point */
  const char *workdir; /* where configs and output files go */
  int keep;            /* keep the work directory */
  long scale_points;   /* grid points of the scaling runs */
  int scale_traj;      /* trajectories per point of the scaling runs */
  long big_points;     /* grid points of the headline run */
  int big_traj;        /* trajectories per point of the headline run */
  int big_ranks;       /* ranks of the headline run */
  int master_ranks;    /* ranks of the master-load runs (0: none) */
  long master_points;  /* trivial grid points of each master-load run */
  int master_repeats;  /* master-load runs with one point per request */
} bench_opts;

/* Growing text buffer (the JSON summary). */
typedef struct {
  char *s;
  size_t n, cap;
} sbuf;
void sb_printf(sbuf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* A number as JSON: %.6g, or null when not finite. */
void sb_num(sbuf *b, double x);

/* Monotonic clock in seconds. */
double bench_now(void);
/* Median of n values (sorts a copy); NaN when n == 0. Non-finite values
 * are ignored. */
double bench_median(const double *x, int n);
/* 1-minute load average (/proc/loadavg); NaN if unknown. */
double bench_loadavg(void);
/* Largest finite value; NaN when none. */
double bench_max(const double *x, int n);
/* Records why the run's figures are not to be trusted (a disturbed
 * timing): the JSON says "ok": false and lists the reasons in
 * "not_ok_reasons"; the exit status is not changed (it reports what
 * failed to run). */
void bench_not_ok(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The two parts. Each prints its tables on stdout and appends its JSON
 * member(s) (`"kernels": {...}` / `"sweep": {...}`) to `json`.
 * Return 0 on success. */
int bench_kernels(const bench_opts *o, sbuf *json);
/* Accuracy at the defaults, error-estimate bound fraction, batch-kernel
 * cost and time against rk8pd (bench_quick.c); appends its top-level
 * keys (docs/benchmark.md). */
int bench_quick(const bench_opts *o, sbuf *json);
int bench_sweep(const bench_opts *o, sbuf *json);
/* Boundary refinement's cost on a slice (bench_refine.c): appends the
 * top-level keys refine_evals_per_edge, refine_cost_ratio and
 * refine_max_position_error. */
int bench_refine(const bench_opts *o, sbuf *json);
/* The driven sleigh's cost (bench_forced.c): appends forced_us_per_traj,
 * forced_time_ratio_vs_rk8pd and their random-batch medians. */
int bench_forced(const bench_opts *o, sbuf *json);

#endif
