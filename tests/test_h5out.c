/* HDF5 output: collective writes from several ranks in several flush epochs,
 * read back serially; attributes, dimension scales, fill values, resume.
 * Usage: test_h5out [output.h5] (the file is left behind for
 * check_xarray.py; default test_h5out_np<ranks>.h5). */
#include <hdf5.h>
#include <hdf5_hl.h>
#include <math.h>
#include <mpi.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sleighsweep/error.h"
#include "sleighsweep/grid.h"
#include "sleighsweep/h5out.h"
#include "sleighsweep/h5peek.h"
#include "sleighsweep/names.h"
#include "sleighsweep/stepper.h"
#include "sleighsweep/version.h"
#include "test_util.h"

#define NPTS 12 /* grid 3 x 2 x 1 x 1 x 1 x 2 x 1 */
#define NS 2    /* samples per point */
#define NN 5    /* nodes per sample */
#define NEVER 8 /* never written */
#define LATE 3  /* written only after the resume */
#define NSEL 4  /* grid points keeping samples: */
static const uint64_t sel_index[NSEL] = {1, LATE, NEVER, 10};

/* The run axes (Gamma, energy, drag) hold one value: the file has the
 * body's dimensions (SSW_NBODY_AXES; test_run_axes.py sweeps them). Axes
 * not named here hold one value. */
static const int swept[SSW_NAXES] = {
    [SSW_AXIS_THETA] = 3, [SSW_AXIS_A_COM] = 2, [SSW_AXIS_A_SEMI] = 2};
static int shape_of(int a) { return swept[a] ? swept[a] : 1; }

static const char config_text[] =
    "[body]\nm = 1\nI0 = 0.5\nrho = 1\n[grid]\ntheta = 0, 0.7853981633974483, "
    "1.5707963267948966\na = 0.1, 0.2\nA = 0.5, 0.6\nB = 0.3\n";

/* The file's contract, spelled independently of src/io/h5out.c. */
typedef struct {
  const char *name;
  size_t offset;
  char kind; /* d double, i int, l int32_t, 1 constant one (done) */
  double fill;
  const char *units;
} field;

#define D(n, m, u)                                                             \
  { n, offsetof(ssw_point_result, m), 'd', NAN, u }
static const field fields[] = {
    D("J", tensor.J, "mass length2"),
    D("M", tensor.M, "mass"),
    D("N", tensor.N, "mass"),
    D("L1", tensor.L1, "mass length"),
    D("L2", tensor.L2, "mass length"),
    D("Z", tensor.Z, "mass"),
    D("analytic_radius", analytic.radius, "length"),
    D("analytic_center_spacing", analytic.d, "length"),
    D("analytic_transition_angle", analytic.dphi_abs, "rad"),
    D("radius_future", radius_future, "length"),
    D("radius_past", radius_past, "length"),
    D("center_spacing", center_spacing, "length"),
    D("transition_angle", transition_angle, "rad"),
    D("radius_future_spread", radius_future_spread, "length"),
    D("radius_past_spread", radius_past_spread, "length"),
    D("center_spacing_spread", center_spacing_spread, "length"),
    D("transition_angle_spread", transition_angle_spread, "rad"),
    D("converged_fraction", converged_fraction, "1"),
    D("energy_error_max", energy_error_max, "1"),
    D("steps_mean", steps_mean, "1"),
    {"analytic_loops", offsetof(ssw_point_result, analytic.loops), 'i', -1,
     "1"},
    {"loops", offsetof(ssw_point_result, loops), 'l', -1, "1"},
    {"flags", offsetof(ssw_point_result, flags), 'l', 0, "1"},
    {"trajectories", offsetof(ssw_point_result, trajectories), 'l', 0, "1"},
    {"regime", offsetof(ssw_point_result, analytic.regime), 'i', -1, "1"},
    {"analytic_sense", offsetof(ssw_point_result, analytic.sense_future), 'i',
     0, "1"},
    {"sense_future", offsetof(ssw_point_result, sense_future), 'l', 0, "1"},
    {"done", 0, '1', 0, "1"},
};
#define NFIELDS (sizeof fields / sizeof fields[0])
static const char *const sample_names[SSW_SAMPLE_NQ] = {
    "t", "phi", "x", "y", "omega", "v", "H"};

static double field_value(const field *f, const ssw_point_result *p) {
  const char *at = (const char *)p + f->offset;
  double d;
  int i;
  int32_t l;
  if (f->kind == 'd') return memcpy(&d, at, sizeof d), d;
  if (f->kind == 'i') return memcpy(&i, at, sizeof i), i;
  if (f->kind == 'l') return memcpy(&l, at, sizeof l), l;
  return 1.0;
}

/* Deterministic results of point i; includes +inf and a legitimate NaN. */
static ssw_point_result fabricate(uint64_t i) {
  ssw_point_result p;
  memset(&p, 0, sizeof p);
  p.index = i;
  for (size_t k = 0; k < NFIELDS; k++) {
    const double v = (double)i + 0.25 + 1000.0 * k;
    if (fields[k].kind == 'd')
      memcpy((char *)&p + fields[k].offset, &v, sizeof v);
  }
  if (i == 4) p.analytic.radius = INFINITY;
  if (i == 5) p.center_spacing = NAN;
  p.analytic.loops = (int)(i % 4);
  p.loops = (int32_t)(i % 3);
  p.flags = (int32_t)(i & 31);
  p.trajectories = 16 + (int32_t)i;
  p.analytic.regime = (int)(i % 4);
  p.analytic.sense_future = (int)(i % 3) - 1;
  p.sense_future = 1 - (int32_t)(i % 3);
  return p;
}

static double sample_value(uint64_t i, int q, int s, int k) {
  if (s == 1 && k == NN - 1) return NAN; /* an unused node */
  return (double)i * 1000 + q * 100 + s * 10 + k;
}

static void fill_samples(uint64_t i, double *buf) {
  for (int q = 0; q < SSW_SAMPLE_NQ; q++)
    for (int s = 0; s < NS; s++)
      for (int k = 0; k < NN; k++)
        buf[(q * NS + s) * NN + k] = sample_value(i, q, s, k);
}

static char *copy(const char *s) {
  char *c = malloc(strlen(s) + 1);
  return c ? strcpy(c, s) : NULL;
}

/* The census's slots (the attractor_slot dimension, check_xarray.py). */
#define SLOTS 2

static ssw_config *make_config(const char *text) {
  static const ssw_method method = {.name = "hamel6",
                                    .description = "test",
                                    .order = 6,
                                    .eps_scale = 1.0,
                                    .caps = SSW_CAP_BATCH,
                                    .reference = "test"};
  ssw_config *c = calloc(1, sizeof *c);
  c->body =
      (ssw_body){.m = 1.0, .I0 = 0.5, .rho = 1.0, .k_rot = SSW_KROT_PAPERS};
  snprintf(c->k_rot_name, sizeof c->k_rot_name, "papers");
  c->zero_tol = SSW_ZERO_TOL_DEFAULT;
  for (int i = 0; i < SSW_NAXES; i++) {
    c->axes[i].n = shape_of(i);
    c->axes[i].values = malloc((size_t)shape_of(i) * sizeof(double));
    for (int k = 0; k < shape_of(i); k++)
      c->axes[i].values[k] = i == 0 ? k * M_PI / 4 : 0.1 * (i + 1) + 0.1 * k;
  }
  c->trajectories = 16, c->seed = 42, c->ic = SSW_IC_LATTICE;
  c->attractor_slots = SLOTS;
  c->energy = 0.5;
  ssw_integrator_defaults(&c->integ);
  c->integ.method = &method;
  c->samples = NS, c->sample_nodes = NN;
  c->sample_sel.n = NSEL;
  c->sample_sel.index = malloc(sizeof sel_index);
  memcpy(c->sample_sel.index, sel_index, sizeof sel_index);
  c->path = copy("cases/test.ini");
  c->text = copy(text);
  return c;
}

static void free_config(ssw_config *c) {
  for (int i = 0; i < SSW_NAXES; i++)
    free(c->axes[i].values);
  free(c->sample_sel.index);
  free(c->path);
  free(c->text);
  free(c);
}

/* Writes the points `ids` owned by this rank in one collective call, in
 * reverse order so that the writer has to sort. */
static int write_epoch(ssw_h5out *h, const uint64_t *ids, size_t n) {
  ssw_point_result pts[NPTS];
  double samples[NPTS * NS * NN * SSW_SAMPLE_NQ];
  for (size_t j = 0; j < n; j++) {
    pts[j] = fabricate(ids[n - 1 - j]);
    fill_samples(ids[n - 1 - j], samples + j * NS * NN * SSW_SAMPLE_NQ);
  }
  return ssw_h5out_write_points(h, pts, n, n ? samples : NULL);
}

/* Epoch 0 writes indices 0..5 from all ranks but the last, epoch 1 writes
 * 6..11 from all ranks but rank 0 (with one rank, rank 0 does both). */
static size_t epoch_points(int epoch, int rank, int size, uint64_t *ids) {
  size_t n = 0;
  const int writers = size > 1 ? size - 1 : 1, first = size > 1 ? epoch : 0;
  for (uint64_t i = (uint64_t)epoch * 6; i < (uint64_t)epoch * 6 + 6; i++)
    if (i != NEVER && i != LATE && first + (int)(i % writers) == rank)
      ids[n++] = i;
  return n;
}

static int read_attr_string(hid_t loc, const char *name, char *buf,
                            size_t size) {
  hid_t a = H5Aopen(loc, name, H5P_DEFAULT), t = H5Tcopy(H5T_C_S1);
  H5Tset_size(t, size);
  H5Tset_cset(t, H5T_CSET_UTF8); /* the writer's character set */
  const int rc = a >= 0 ? H5Aread(a, t, buf) : -1;
  if (a >= 0) H5Aclose(a);
  H5Tclose(t);
  if (rc < 0) buf[0] = '\0';
  return rc;
}

static double read_attr_double(hid_t loc, const char *name) {
  double v = NAN;
  hid_t a = H5Aopen(loc, name, H5P_DEFAULT);
  if (a >= 0) H5Aread(a, H5T_NATIVE_DOUBLE, &v), H5Aclose(a);
  return v;
}

static void expect_attr(hid_t loc, const char *name, const char *want) {
  static char got[128 * 1024];
  read_attr_string(loc, name, got, sizeof got);
  EXPECT(strcmp(got, want) == 0, "attribute %s = \"%s\", expected \"%s\"", name,
         got, want);
}

static int same(double a, double b) { return a == b || (isnan(a) && isnan(b)); }

/* Every grid dataset: values of done points, fill values elsewhere, units,
 * and the seven scales attached in order. */
static void check_fields(hid_t f, const int *done_expected,
                         const hid_t *scales) {
  for (size_t k = 0; k < NFIELDS; k++) {
    double got[NPTS];
    hid_t d = H5Dopen2(f, fields[k].name, H5P_DEFAULT);
    EXPECT(d >= 0, "dataset %s missing", fields[k].name);
    if (d < 0) continue;
    EXPECT(H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, got) >=
               0,
           "reading %s", fields[k].name);
    for (uint64_t i = 0; i < NPTS; i++) {
      const ssw_point_result p = fabricate(i);
      const double want =
          done_expected[i] ? field_value(&fields[k], &p) : fields[k].fill;
      EXPECT(same(got[i], want), "%s[%d] = %.17g, expected %.17g",
             fields[k].name, (int)i, got[i], want);
    }
    expect_attr(d, "units", fields[k].units);
    char ln[256];
    EXPECT(read_attr_string(d, "long_name", ln, sizeof ln) >= 0 && ln[0],
           "%s has no long_name", fields[k].name);
    for (unsigned dim = 0; dim < SSW_NBODY_AXES; dim++)
      EXPECT(H5DSis_attached(d, scales[dim], dim) > 0,
             "scale %s not attached to %s", ssw_axis_names[dim],
             fields[k].name);
    H5Dclose(d);
  }
}

/* /samples holds the chosen points only, in index order along `point`
 * (whose scale is their flat index), with their grid coordinates. */
static void check_sample_coords(hid_t f, const ssw_config *cfg, hid_t point) {
  uint64_t idx[NSEL] = {0};
  H5Dread(point, H5T_NATIVE_UINT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, idx);
  EXPECT(memcmp(idx, sel_index, sizeof idx) == 0, "samples/point values");
  for (int a = 0; a < SSW_NBODY_AXES; a++) {
    char path[32];
    double v[NSEL];
    snprintf(path, sizeof path, "samples/%s", ssw_axis_names[a]);
    hid_t d = H5Dopen2(f, path, H5P_DEFAULT);
    EXPECT(d >= 0 && H5DSis_attached(d, point, 0) > 0, "%s over point", path);
    if (d < 0) continue;
    H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v);
    for (int k = 0; k < NSEL; k++) {
      int at[SSW_NAXES];
      ssw_grid_unravel(cfg->axes, sel_index[k], at);
      EXPECT(v[k] == cfg->axes[a].values[at[a]], "%s[%d] = %g", path, k, v[k]);
    }
    H5Dclose(d);
  }
}

static void check_samples(hid_t f, const ssw_config *cfg,
                          const int *done_expected) {
  static double got[NSEL * NS * NN];
  static const char *const dims[3] = {"point", "sample", "node"};
  hid_t scales[3];
  for (int i = 0; i < 3; i++) {
    char path[32];
    snprintf(path, sizeof path, "samples/%s", dims[i]);
    scales[i] = H5Dopen2(f, path, H5P_DEFAULT);
    EXPECT(scales[i] >= 0 && H5DSis_scale(scales[i]) > 0, "%s not a scale",
           path);
  }
  if (scales[0] >= 0) check_sample_coords(f, cfg, scales[0]);
  for (int q = 0; q < SSW_SAMPLE_NQ; q++) {
    char path[32];
    snprintf(path, sizeof path, "samples/%s", sample_names[q]);
    hid_t d = H5Dopen2(f, path, H5P_DEFAULT);
    EXPECT(d >= 0, "dataset %s missing", path);
    if (d < 0) continue;
    H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, got);
    for (int p = 0; p < NSEL; p++)
      for (int s = 0; s < NS; s++)
        for (int k = 0; k < NN; k++) {
          const int i = (int)sel_index[p];
          const double want = done_expected[i] ? sample_value(i, q, s, k) : NAN;
          const double g = got[(p * NS + s) * NN + k];
          EXPECT(same(g, want), "%s[%d,%d,%d] = %g, expected %g", path, p, s, k,
                 g, want);
        }
    for (unsigned dim = 0; dim < 3; dim++)
      EXPECT(H5DSis_attached(d, scales[dim], dim) > 0,
             "scale %s not attached to %s", dims[dim], path);
    H5Dclose(d);
  }
  for (int i = 0; i < 3; i++)
    if (scales[i] >= 0) H5Dclose(scales[i]);
}

static void check_scales(hid_t f, const ssw_config *cfg, hid_t *scales) {
  for (int i = 0; i < SSW_NBODY_AXES; i++) {
    double v[3];
    char name[16] = "";
    scales[i] = H5Dopen2(f, ssw_axis_names[i], H5P_DEFAULT);
    EXPECT(scales[i] >= 0 && H5DSis_scale(scales[i]) > 0,
           "%s is not a dimension scale", ssw_axis_names[i]);
    H5DSget_scale_name(scales[i], name, sizeof name);
    EXPECT(strcmp(name, ssw_axis_names[i]) == 0, "scale name %s != %s", name,
           ssw_axis_names[i]);
    H5Dread(scales[i], H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v);
    for (int k = 0; k < shape_of(i); k++)
      EXPECT(v[k] == cfg->axes[i].values[k], "%s[%d] = %g", ssw_axis_names[i],
             k, v[k]);
  }
}

/* Serial read-back on rank 0 with the default (sec2) driver. */
static void check_file(const char *path, const ssw_config *cfg, int ranks,
                       const int *done_expected, const char *status) {
  hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT), scales[SSW_NAXES];
  EXPECT(f >= 0, "cannot reopen %s", path);
  if (f < 0) return;
  check_scales(f, cfg, scales);
  check_fields(f, done_expected, scales);
  check_samples(f, cfg, done_expected);
  for (int i = 0; i < SSW_NBODY_AXES; i++)
    H5Dclose(scales[i]);
  expect_attr(f, "program", "sleighsweep");
  expect_attr(f, "version", ssw_version_string());
  expect_attr(f, "git_revision", ssw_version_git());
  expect_attr(f, "config", cfg->text);
  expect_attr(f, "config_path", "cases/test.ini");
  expect_attr(f, "k_rot_convention", "papers");
  expect_attr(f, "scheme", "hamel6");
  expect_attr(f, "reconstruction", "exp");
  expect_attr(f, "initial_conditions", "lattice");
  expect_attr(f, "hostname", "host-of-rank-0");
  expect_attr(f, "start_time", "2025-01-31T12:00:00Z");
  expect_attr(f, "status", status);
  EXPECT(read_attr_double(f, "mpi_ranks") == ranks, "mpi_ranks");
  EXPECT(read_attr_double(f, "k_rot") == 0.25, "k_rot");
  EXPECT(read_attr_double(f, "points_total") == NPTS, "points_total");
  EXPECT(read_attr_double(f, "seed") == 42, "seed");
  hid_t d = H5Dopen2(f, "regime", H5P_DEFAULT);
  expect_attr(d, "flag_meanings",
              "uniform line_to_line spin_reversal circle_to_circle periodic");
  EXPECT(read_attr_double(d, "_FillValue") == -1, "regime _FillValue");
  H5Dclose(d);
  H5Fclose(f);
}

/* A format-3 /segments table (a compound), written here as that format's
 * writer did, with its own memory type. */
typedef struct {
  char start[32], end[32], status[16];
  int32_t ranks, threads;
  uint64_t computed, done;
  double wall;
} seg_row;

static hid_t seg_mem_type(void) {
  hid_t t = H5Tcreate(H5T_COMPOUND, sizeof(seg_row));
  hid_t s32 = H5Tcopy(H5T_C_S1), s16 = H5Tcopy(H5T_C_S1);
  H5Tset_size(s32, 32), H5Tset_size(s16, 16);
  H5Tinsert(t, "start_time", offsetof(seg_row, start), s32);
  H5Tinsert(t, "end_time", offsetof(seg_row, end), s32);
  H5Tinsert(t, "status", offsetof(seg_row, status), s16);
  H5Tinsert(t, "mpi_ranks", offsetof(seg_row, ranks), H5T_NATIVE_INT32);
  H5Tinsert(t, "omp_threads", offsetof(seg_row, threads), H5T_NATIVE_INT32);
  H5Tinsert(t, "points_computed", offsetof(seg_row, computed),
            H5T_NATIVE_UINT64);
  H5Tinsert(t, "points_done", offsetof(seg_row, done), H5T_NATIVE_UINT64);
  H5Tinsert(t, "wall_time_s", offsetof(seg_row, wall), H5T_NATIVE_DOUBLE);
  H5Tclose(s32), H5Tclose(s16);
  return t;
}

/* Turns the file into format 3 with one segment `w` in its compound table
 * and history (serial, rank 0). */
static void make_format3(const char *path, const ssw_h5out_segment *w) {
  hid_t f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
  EXPECT(H5Ldelete(f, "segments", H5P_DEFAULT) >= 0, "removing /segments");
  seg_row row = {"",
                 "",
                 "",
                 w->mpi_ranks,
                 w->omp_threads,
                 w->points_computed,
                 w->points_done,
                 w->wall_time_s};
  snprintf(row.start, sizeof row.start, "%s", w->start_time);
  snprintf(row.end, sizeof row.end, "%s", w->end_time);
  snprintf(row.status, sizeof row.status, "%s", w->status);
  hsize_t one = 1;
  hid_t t = seg_mem_type(), sp = H5Screate_simple(1, &one, NULL);
  H5Tcommit2(f, "segment_t", t, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  hid_t d =
      H5Dcreate2(f, "segments", t, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  EXPECT(d >= 0 && H5Dwrite(d, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, &row) >= 0,
         "writing a format-3 /segments");
  char line[256];
  snprintf(line, sizeof line,
           "%s sleighsweep run: %s, %llu points on %d rank(s) x %d "
           "thread(s) in %g s",
           w->end_time, w->status, (unsigned long long)w->points_computed,
           w->mpi_ranks, w->omp_threads, w->wall_time_s);
  H5LTset_attribute_string(f, "/", "history", line);
  const int three = 3;
  H5LTset_attribute_int(f, "/", "format_version", &three, 1);
  H5Dclose(d), H5Sclose(sp), H5Tclose(t);
  H5Fclose(f);
}

/* n rows equal to want[0 .. n-1], one history line each (newest last) and
 * the root wall_time_s their sum. Serial, rank 0. */
static void check_segments(const char *path, const ssw_h5out_segment *want,
                           int n) {
  hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  ssw_h5peek_segment *got = NULL;
  const long rows = ssw_h5peek_segments(f, &got);
  EXPECT(rows == n && got, "/segments has %ld rows (read: %d), expected %d",
         rows, got != NULL, n);
  double sum = 0;
  static char history[4096];
  read_attr_string(f, "history", history, sizeof history);
  const char *line = history;
  for (int i = 0; i < n && rows == n && got; i++) {
    const ssw_h5out_segment *w = &want[i];
    sum += w->wall_time_s;
    EXPECT(!strcmp(got[i].start_time, w->start_time) &&
               !strcmp(got[i].end_time, w->end_time) &&
               !strcmp(got[i].status, w->status) &&
               got[i].mpi_ranks == w->mpi_ranks &&
               got[i].omp_threads == w->omp_threads &&
               got[i].points_computed == w->points_computed &&
               got[i].points_done == w->points_done &&
               got[i].wall_time_s == w->wall_time_s,
           "segment %d: %s %s %s %d %d %llu %llu %g", i, got[i].start_time,
           got[i].end_time, got[i].status, got[i].mpi_ranks, got[i].omp_threads,
           (unsigned long long)got[i].points_computed,
           (unsigned long long)got[i].points_done, got[i].wall_time_s);
    char expect_line[256];
    snprintf(expect_line, sizeof expect_line,
             "%s sleighsweep run: %s, %llu points on %d rank(s) x %d "
             "thread(s) in %g s",
             w->end_time, w->status, (unsigned long long)w->points_computed,
             w->mpi_ranks, w->omp_threads, w->wall_time_s);
    const size_t len = strcspn(line, "\n");
    EXPECT(len == strlen(expect_line) && !strncmp(line, expect_line, len),
           "history line %d: \"%.*s\", expected \"%s\"", i, (int)len, line,
           expect_line);
    line += len + (line[len] == '\n');
  }
  EXPECT(*line == '\0', "history has more lines than segments: \"%s\"", line);
  EXPECT(read_attr_double(f, "wall_time_s") == sum, "wall_time_s %g != %g",
         read_attr_double(f, "wall_time_s"), sum);
  EXPECT(read_attr_double(f, "format_version") == 8, "format_version %g",
         read_attr_double(f, "format_version"));
  free(got);
  H5Fclose(f);
}

/* Rank 0's segment is stored: the others pass nonsense. */
static const ssw_h5out_segment junk = {"junk", "junk", "junk", -1,
                                       -1,     7,      7,      1e9};

static const ssw_h5out_segment seg1 = {"2025-01-31T12:00:00Z",
                                       "2025-01-31T12:01:00Z",
                                       "interrupted",
                                       3,
                                       1,
                                       10,
                                       10,
                                       60.0};
static const ssw_h5out_segment seg2 = {"2025-01-31T12:01:30Z",
                                       "2025-01-31T12:02:00Z",
                                       "complete",
                                       2,
                                       4,
                                       1,
                                       11,
                                       1.5};

static void test_write_and_read(const char *path, int rank, int size) {
  ssw_config *cfg = make_config(config_text);
  char host[32];
  snprintf(host, sizeof host, rank == 0 ? "host-of-rank-0" : "host-%d", rank);
  ssw_h5out_meta meta = {size,       2,    "2025-01-31T12:00:00Z",
                         "Test MPI", host, "sleighsweep run test.ini"};
  ssw_h5out *h = NULL;
  int rc = ssw_h5out_create(MPI_COMM_WORLD, path, cfg, &meta, &h);
  EXPECT(rc == SSW_SUCCESS, "create: %s", ssw_error_message());
  if (rc != SSW_SUCCESS) MPI_Abort(MPI_COMM_WORLD, 1);
  uint64_t ids[NPTS];
  for (int e = 0; e < 2; e++) {
    size_t n = epoch_points(e, rank, size, ids);
    rc = write_epoch(h, ids, n);
    EXPECT(rc == SSW_SUCCESS, "epoch %d: %s", e, ssw_error_message());
    EXPECT(ssw_h5out_flush(h) == SSW_SUCCESS, "flush: %s", ssw_error_message());
  }
  /* A bad index on one rank fails the call on every rank, writing nothing. */
  uint64_t bad = rank == size - 1 ? NPTS : 0;
  rc = write_epoch(h, &bad, rank == size - 1 ? 1 : 0);
  EXPECT(rc == SSW_ERR_ARG, "bad index accepted (%d)", rc);
  uint64_t twice[2] = {0, 0};
  rc = write_epoch(h, twice, rank == 0 ? 2 : 0);
  EXPECT(rc == SSW_ERR_ARG, "repeated index accepted (%d)", rc);
  rc = ssw_h5out_finish(h, rank == 0 ? &seg1 : &junk);
  EXPECT(rc == SSW_SUCCESS, "finish: %s", ssw_error_message());
  EXPECT(ssw_h5out_close(&h) == SSW_SUCCESS && h == NULL, "close");
  EXPECT(ssw_h5out_close(&h) == SSW_SUCCESS, "close is NULL-safe");

  rc = ssw_h5out_create(MPI_COMM_WORLD, path, cfg, &meta, &h);
  EXPECT(rc == SSW_ERR_IO && h == NULL &&
             strstr(ssw_error_message(), "already exists"),
         "create over an existing file: %d %s", rc, ssw_error_message());
  int done_expected[NPTS];
  for (int i = 0; i < NPTS; i++)
    done_expected[i] = i != NEVER && i != LATE;
  if (rank == 0) check_file(path, cfg, size, done_expected, "interrupted");
  if (rank == 0) check_segments(path, &seg1, 1);
  MPI_Barrier(MPI_COMM_WORLD);
  free_config(cfg);
}

static void test_resume(const char *path, int rank, int size) {
  ssw_config *cfg = make_config(config_text);
  ssw_h5out *h = NULL;
  int rc = ssw_h5out_open(MPI_COMM_WORLD, path, cfg, &h);
  EXPECT(rc == SSW_SUCCESS, "open: %s", ssw_error_message());
  if (rc != SSW_SUCCESS) MPI_Abort(MPI_COMM_WORLD, 1);
  /* Only rank 0 receives the mask; rank 1 passes NULL, the others an array
   * that must stay untouched. */
  uint8_t done[NPTS];
  memset(done, 7, sizeof done);
  rc = ssw_h5out_read_done(h, rank == 1 ? NULL : done, NULL);
  EXPECT(rc == SSW_SUCCESS, "read_done: %s", ssw_error_message());
  for (int i = 0; i < NPTS; i++)
    EXPECT(rank == 0 ? done[i] == (i != NEVER && i != LATE) : done[i] == 7,
           "rank %d: done[%d] = %d", rank, i, done[i]);
  /* A NULL array on rank 0 fails on every rank. */
  rc = ssw_h5out_read_done(h, rank == 0 ? NULL : done, NULL);
  EXPECT(rc == SSW_ERR_ARG, "read_done(NULL) on rank 0: %d", rc);
  ssw_error_clear();
  uint64_t late = LATE;
  rc = write_epoch(h, &late, rank == size - 1 ? 1 : 0);
  EXPECT(rc == SSW_SUCCESS, "resume write: %s", ssw_error_message());
  rc = ssw_h5out_finish(h, rank == 0 ? &seg2 : &junk);
  EXPECT(rc == SSW_SUCCESS, "finish: %s", ssw_error_message());
  ssw_h5out_close(&h);
  int done_expected[NPTS];
  for (int i = 0; i < NPTS; i++)
    done_expected[i] = i != NEVER;
  if (rank == 0) check_file(path, cfg, size, done_expected, "complete");
  const ssw_h5out_segment both[2] = {seg1, seg2};
  if (rank == 0) check_segments(path, both, 2);
  MPI_Barrier(MPI_COMM_WORLD);

  /* A different config must be refused, naming the line. */
  char other[sizeof config_text];
  memcpy(other, config_text, sizeof other);
  strstr(other, "I0 = 0.5")[7] = '7';
  ssw_config *cfg2 = make_config(other);
  rc = ssw_h5out_open(MPI_COMM_WORLD, path, cfg2, &h);
  EXPECT(rc == SSW_ERR_CONFIG && h == NULL &&
             strstr(ssw_error_message(), "line 3") &&
             strstr(ssw_error_message(), "I0 = 0.7"),
         "mismatching config: %d %s", rc, ssw_error_message());
  rc = ssw_h5out_open(MPI_COMM_WORLD, "no/such/file.h5", cfg, &h);
  EXPECT(rc == SSW_ERR_HDF5 && h == NULL &&
             strstr(ssw_error_message(), "H5Fopen"),
         "missing file: %d %s", rc, ssw_error_message());
  free_config(cfg2);
  free_config(cfg);
}

/* A 100 KiB config text (dense attribute storage) without samples survives
 * the round trip through create and the resume check; a plain HDF5 file is
 * refused as not ours. */
static void test_large_config_and_foreign(const char *base, int rank) {
  char path[300];
  snprintf(path, sizeof path, "%s.big.h5", base);
  char *text = malloc(100 * 1024 + 1);
  for (int i = 0; i < 100 * 1024; i++)
    text[i] = i % 64 == 63 ? '\n' : 'a';
  text[100 * 1024] = '\0';
  ssw_config *cfg = make_config(text);
  cfg->samples = 0;
  ssw_h5out_meta meta = {1, 1, NULL, NULL, NULL, NULL};
  ssw_h5out *h = NULL;
  if (rank == 0) remove(path);
  MPI_Barrier(MPI_COMM_WORLD);
  int rc = ssw_h5out_create(MPI_COMM_WORLD, path, cfg, &meta, &h);
  EXPECT(rc == SSW_SUCCESS, "create with a large config: %s",
         ssw_error_message());
  ssw_point_result p = fabricate(5);
  rc = ssw_h5out_write_points(h, &p, rank == 0, NULL);
  EXPECT(rc == SSW_SUCCESS, "write without samples: %s", ssw_error_message());
  ssw_h5out_close(&h);
  /* A file made before the segments table (no /segments) resumes and
   * gets the group at its finish, starting with that segment. */
  if (rank == 0) {
    hid_t f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
    EXPECT(H5Ldelete(f, "segments", H5P_DEFAULT) >= 0, "removing /segments");
    H5Fclose(f);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  rc = ssw_h5out_open(MPI_COMM_WORLD, path, cfg, &h);
  EXPECT(rc == SSW_SUCCESS, "open with a large config: %s",
         ssw_error_message());
  uint8_t done[NPTS];
  EXPECT(h && ssw_h5out_read_done(h, done, NULL) == SSW_SUCCESS &&
             (rank != 0 || (done[5] == 1 && done[4] == 0)),
         "done mask without samples");
  EXPECT(ssw_h5out_finish(h, rank == 0 ? &seg2 : &junk) == SSW_SUCCESS,
         "finish of a file without /segments: %s", ssw_error_message());
  ssw_h5out_close(&h);
  if (rank == 0) check_segments(path, &seg2, 1);
  /* Format 3 (a compound /segments, and no circulation datasets) is
   * refused on resume, saying which format it is; status still reads its
   * table (test_status). */
  if (rank == 0) make_format3(path, &seg1);
  MPI_Barrier(MPI_COMM_WORLD);
  rc = ssw_h5out_open(MPI_COMM_WORLD, path, cfg, &h);
  EXPECT(rc == SSW_ERR_IO && h == NULL &&
             strstr(ssw_error_message(), "has output format 3"),
         "open of format 3: %d %s", rc, ssw_error_message());
  ssw_h5out_close(&h);
  if (rank == 0) {
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    EXPECT(H5Lexists(f, "samples", H5P_DEFAULT) == 0, "/samples exists");
    expect_attr(f, "config", text);
    expect_attr(f, "hostname", "");
    H5Fclose(f);
    remove(path);
    f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    H5Fclose(f);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  rc = ssw_h5out_open(MPI_COMM_WORLD, path, cfg, &h);
  EXPECT(rc == SSW_ERR_IO && h == NULL &&
             strstr(ssw_error_message(), "not a sleighsweep output"),
         "foreign file: %d %s", rc, ssw_error_message());
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) remove(path);
  free_config(cfg);
  free(text);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  char path[256];
  if (argc > 1)
    snprintf(path, sizeof path, "%s", argv[1]);
  else
    snprintf(path, sizeof path, "test_h5out_np%d.h5", size);
  if (rank == 0) remove(path);
  MPI_Barrier(MPI_COMM_WORLD);
  test_write_and_read(path, rank, size);
  test_resume(path, rank, size);
  test_large_config_and_foreign(path, rank);
  int failures = test_failures, total = 0;
  MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Finalize();
  return total ? (rank == 0 ? TEST_RESULT() : 1) : 0;
}
