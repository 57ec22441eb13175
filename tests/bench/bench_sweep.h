/* One `sleighsweep run` under mpirun for the sweep part of the benchmark
 * (bench_sweep.c, bench_master.c): the engine's summary line and the
 * per-rank lines of the preload library ssw_bench_pmpi, parsed. */
#ifndef SSW_BENCH_SWEEP_H
#define SSW_BENCH_SWEEP_H

#include "bench.h"

#define MAXRANKS 64

typedef struct {
  int ok, ranks, threads;
  long points;
  int traj;
  double ext_wall;     /* mpirun start to exit */
  double wall;         /* engine: schedule wall time ("computed now in") */
  double io_s, io_pct; /* engine: "HDF5 writes X s = Y% of wall time" */
  int epochs;
  int nr; /* ranks reported by the preload library */
  double rank_wall[MAXRANKS], sched[MAXRANKS], rss_mb[MAXRANKS];
  double cpu[MAXRANKS]; /* user + system seconds of each rank */
  long calls[MAXRANKS];
  double file_mb;
  int retries; /* runs killed from outside and repeated */
  /* Work requests (preload library): received by rank 0, the span from
   * its first to its last and rank 0's CPU seconds over it; sent by all */
  long req_recv;
  double req_span, req_cpu;
  long req_sent;
  /* The engine's SSW_LOG_SCHEDULE line (NaN / -1 when absent) */
  double sched_us;  /* rank 0's CPU time per request taken */
  long first_units; /* units handed out ahead */
  int master_alone; /* 1: rank 0 only schedules; 0 computes; -1 unknown */
} srun;

/* Runs `cfg` (writing `out`) on `ranks` x `threads` with `env` ("" or
 * "K=V ..." for the ranks' environment); figures into r. 0 on success.
 * A run killed from outside is repeated (r->retries). */
int bench_run_cfg(const bench_opts *o, const char *cfg, const char *out,
                  int ranks, int threads, const char *env, srun *r);

/* CPU seconds of all ranks over the longest rank wall (cores used). */
double bench_cores_used(const srun *r);

/* Master load (bench_master.c): requests per second on many oversubscribed
 * ranks with trivial points; appends `, "master": {...}` to json and sets
 * *rate (master_requests_per_s). */
int bench_master(const bench_opts *o, const char *dir, int ncpu, sbuf *json,
                 double *rate);

#endif
