/* `sleighsweep status FILE`: progress of a sweep from its output file and
 * journals, read-only, usable while a run writes them and after it died. */
/* _GNU_SOURCE (F_OFD_GETLK, timegm, strptime) comes from the build. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <hdf5.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli_internal.h"
#include "cli_util.h"
#include "sleighsweep/config.h"
#include "sleighsweep/error.h"
#include "sleighsweep/grid.h"
#include "sleighsweep/h5peek.h"
#include "sleighsweep/journal.h"
#include "sleighsweep/names.h"
#include "sleighsweep/runlock.h"

static const char status_usage[] =
    "Usage: sleighsweep status FILE [--json]\n"
    "\n"
    "Reports a sweep's progress from its output FILE and its journals\n"
    "(FILE.journal.<rank>), without writing anything: points done of the\n"
    "total (file and journals together), the file's status attribute, the\n"
    "rate and ETA while it runs, the run segments the file records, and\n"
    "whether a process holds a lock on the output. Works while a run is\n"
    "writing (no HDF5 file locking) and after a run was killed.\n"
    "\n"
    "  --json       one JSON object on stdout instead of text\n"
    "  -h, --help   this text\n"
    "\n"
    "Exit status: 0 reported; 1 FILE cannot be read (what it is is said:\n"
    "missing, a directory, a FIFO, not HDF5, ...) or is malformed (the\n"
    "report comes first); 2 bad usage. Never blocks.\n";

/* Everything reported; strings are "" when absent. */
typedef struct {
  const char *path;
  char status[32], start_time[64], end_time[64], host[256];
  char malformed[480]; /* why the file is not as the engine wrote it */
  char *config, *history;
  uint64_t total, in_file, in_journals, done;
  uint64_t forged; /* marked done in the file but holding no results */
  size_t journals, torn;
  int journals_read; /* 0: the stored config does not parse */
  char journal_note[256];
  double prev_done; /* points_done attribute of an earlier segment, -1 */
  double elapsed, rate, eta, idle; /* NAN when unknown */
  long segments;                   /* rows of a /segments table, -1: none */
  ssw_h5peek_segment *seg_rows;    /* those rows; NULL: none or unreadable */
  int lock_held;                   /* 1 held, 0 not, -1 not probed */
  long lock_pid;                   /* -1: unknown (OFD lock) */
  char lock_path[4200];
  char lock_holder[256]; /* the lock file's "host H, PID P", if any */
} report;

/* ---- reading the file --------------------------------------------- */

static void copy_attr(hid_t f, const char *name, char *dst, size_t n) {
  char *s = ssw_h5peek_root_str(f, name);
  snprintf(dst, n, "%s", s ? s : "");
  free(s);
}

/* The status attribute, one of the three words the engine writes;
 * anything else (none, not a string, another or a longer text) makes the
 * file malformed, and says so. */
static void read_status(hid_t f, report *r) {
  char *s = ssw_h5peek_root_str(f, SSW_ATTR_STATUS);
  r->status[0] = '\0';
  if (s && (!strcmp(s, SSW_STATUS_RUNNING) || !strcmp(s, SSW_STATUS_COMPLETE) ||
            !strcmp(s, SSW_STATUS_INTERRUPTED)))
    snprintf(r->status, sizeof r->status, "%s", s);
  else if (s)
    snprintf(r->malformed, sizeof r->malformed,
             "its status attribute is \"%.40s%s\" (%zu characters), not "
             "running, complete or interrupted",
             s, strlen(s) > 40 ? "..." : "", strlen(s));
  else
    snprintf(r->malformed, sizeof r->malformed, "%s",
             ssw_h5peek_root_has(f, SSW_ATTR_STATUS)
                 ? "its status attribute is not a string"
                 : "it has no status attribute");
  for (char *p = r->malformed; *p; p++) /* its text is the file's */
    if ((unsigned char)*p < 0x20 || (unsigned char)*p == 0x7f) *p = '?';
  free(s);
}

static void probe_lock(report *r);

/* A file that did not read while a run holds its lock may just be in the
 * middle of a write (status reads without HDF5's locking): say so. */
static const char *being_written(report *r) {
  probe_lock(r);
  return r->lock_held == 1 ? "; a run holds its lock and is writing it "
                             "(HDF5 does not let a reader see a file "
                             "between two writes): try again"
                           : "";
}

/* The journals' records (the journal reader needs the run's config, which
 * the file stores); a note says why when they cannot be read. */
static void read_journals(report *r, ssw_journal_set *set) {
  ssw_config *cfg = NULL;
  if (ssw_config_parse(r->config, "the file's config", &cfg) != SSW_SUCCESS) {
    snprintf(r->journal_note, sizeof r->journal_note,
             "journals not read: the stored config does not parse with this "
             "build (%.160s)",
             ssw_error_user_message());
    return;
  }
  if (ssw_journal_read_all(r->path, cfg, set) != SSW_SUCCESS) {
    snprintf(r->journal_note, sizeof r->journal_note,
             "journals not read: %.200s", ssw_error_user_message());
  } else {
    r->journals_read = 1;
    r->journals = set->files;
    r->torn = set->torn;
  }
  ssw_config_destroy(&cfg);
}

/* The points done: the file's done mask, checked against its values
 * (h5peek.h: a point marked done without results is not done), and the
 * journals' points it lacks. */
static int count_points(hid_t f, report *r) {
  ssw_journal_set set = {0};
  read_journals(r, &set);
  ssw_h5peek_done c;
  const int rc = ssw_h5peek_count_done(f, r->total,
                                       r->journals_read ? &set.recs : NULL, &c);
  ssw_journal_set_free(&set);
  SSW_CHECK(rc == SSW_SUCCESS, SSW_ERR_IO,
            "'%s' is not a sleighsweep output (%s)%s", r->path,
            ssw_error_user_message(), being_written(r));
  r->in_file = c.in_file;
  r->in_journals = c.in_journals;
  r->forged = c.forged;
  r->done = r->in_file + r->in_journals;
  if (r->forged > 0 && !r->malformed[0])
    snprintf(r->malformed, sizeof r->malformed,
             "%llu point(s) are marked done but hold no results (fill "
             "values): a damaged or edited done mask (a run computes them "
             "again)",
             (unsigned long long)r->forged);
  if (!strcmp(r->status, SSW_STATUS_COMPLETE) && r->done < r->total &&
      !r->malformed[0])
    snprintf(r->malformed, sizeof r->malformed,
             "its status says complete, but %llu of %llu points are done",
             (unsigned long long)r->done, (unsigned long long)r->total);
  return SSW_SUCCESS;
}

/* Whether the stored config asks for a refinement (then a complete file
 * holds /boundaries). */
static int wants_boundaries(const report *r) {
  ssw_config *cfg = NULL;
  const int want =
      ssw_config_parse(r->config, "the file's config", &cfg) == SSW_SUCCESS &&
      cfg->refine_classes != 0;
  ssw_config_destroy(&cfg);
  ssw_error_clear();
  return want;
}

/* A file its last run closed (complete or interrupted) is read back whole
 * as a rerun reads it (h5peek.h: ssw_h5peek_verify); damage is said with
 * what a rerun does about it. A running or killed run's file is not: it is
 * being written, and a rerun rebuilds it from its journals anyway. */
static void verify(hid_t f, report *r) {
  const int complete = !strcmp(r->status, SSW_STATUS_COMPLETE);
  if (r->malformed[0] ||
      (!complete && strcmp(r->status, SSW_STATUS_INTERRUPTED) != 0))
    return;
  ssw_h5peek_verdict v;
  if (ssw_h5peek_verify(f, complete && wants_boundaries(r), &v) == SSW_SUCCESS)
    return;
  ssw_error_clear();
  const char *what =
      r->journals > 0 ? "a rerun of the same command rebuilds it from its "
                        "journals"
      : v.grid_ok     ? "the grid reads whole: a rerun of the same command "
                        "refines it again"
                  : "no journals hold its points: they are lost unless a copy "
                    "of the file exists; remove it or pass --overwrite to "
                    "compute them again";
  snprintf(r->malformed, sizeof r->malformed, "damaged: %s; %s", v.why, what);
}

/* The root attributes and the points done. Without file locking: a
 * running sweep holds the file open, and its flushed epochs are safe to
 * read (only `done` points are trusted). */
static int read_file(report *r) {
  hid_t f = H5I_INVALID_HID;
  int status = ssw_h5peek_open(r->path, &f);
  if (status != SSW_SUCCESS) goto done;
  read_status(f, r);
  copy_attr(f, SSW_ATTR_START_TIME, r->start_time, sizeof r->start_time);
  copy_attr(f, SSW_ATTR_END_TIME, r->end_time, sizeof r->end_time);
  copy_attr(f, "hostname", r->host, sizeof r->host);
  r->config = ssw_h5peek_root_str(f, SSW_ATTR_CONFIG);
  r->history = ssw_h5peek_root_str(f, SSW_ATTR_HISTORY);
  r->prev_done = ssw_h5peek_root_num(f, SSW_ATTR_POINTS_DONE);
  /* Checked as a double: a NaN (an attribute that did not read) cast to
   * an integer printed as 9223372036854775808. */
  const double total = ssw_h5peek_root_num(f, "points_total");
  r->total = total >= 1 && total < 1.8e19 && total == floor(total)
                 ? (uint64_t)total
                 : 0;
  r->segments = ssw_h5peek_segments(f, &r->seg_rows);
  if (!r->config || r->total == 0) {
    status = SSW_RAISE(SSW_ERR_IO, "'%s' is not a sleighsweep output (%s)%s",
                       r->path,
                       !r->config ? "no config attribute"
                                  : "its points_total attribute is missing "
                                    "or not a count",
                       being_written(r));
    goto done;
  }
  status = count_points(f, r);
  if (status == SSW_SUCCESS) verify(f, r);
done:
  ssw_h5peek_close(&f);
  return status;
}

/* ---- the lock and the clock ---------------------------------------- */

/* The run's locks (src/sweep/runlock.c: the name lock "<output>.lock" and the
 * identity lock, whose files name the holder "host H, PID P") and any
 * fcntl lock on the output itself. */
static void probe_lock(report *r) {
  r->lock_held = ssw_runlock_probe(r->path, &r->lock_pid, r->lock_holder,
                                   sizeof r->lock_holder, r->lock_path,
                                   sizeof r->lock_path);
}

/* ISO 8601 UTC ("2025-01-31T12:00:00Z") to seconds since the epoch. */
static double parse_iso(const char *s) {
  struct tm tm = {0};
  const char *end = strptime(s, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return end && !*end ? (double)timegm(&tm) : NAN;
}

/* Seconds since the newest modification of the file or a journal. */
static double idle_seconds(const char *path) {
  struct stat st;
  double newest = stat(path, &st) == 0 ? (double)st.st_mtime : NAN;
  for (int rank = 0; rank < 65536; rank++) {
    char j[4200];
    ssw_journal_path(path, rank, j, sizeof j);
    if (stat(j, &st) != 0) break;
    if (isnan(newest) || st.st_mtime > newest) newest = (double)st.st_mtime;
  }
  return (double)time(NULL) - newest;
}

/* Rate and ETA of a running segment: points since its start over its
 * time. Known for a first segment (start_time, no end_time yet) or when an
 * earlier segment recorded points_done and end_time (then the rate counts
 * from that end, a lower bound). A run that holds no lock is not running:
 * its time ends at its last write (file or journals), and it has no ETA. */
static void rate_eta(report *r) {
  r->elapsed = r->rate = r->eta = NAN;
  const int dead = r->lock_held == 0;
  const double now = (double)time(NULL) - (dead ? r->idle : 0);
  const int resumed = r->end_time[0] != '\0';
  const double t0 = parse_iso(resumed ? r->end_time : r->start_time);
  if (isnan(t0) || isnan(now)) return;
  r->elapsed = now - t0;
  if (strcmp(r->status, SSW_STATUS_RUNNING) != 0 || r->elapsed <= 0) return;
  const double before = resumed && !isnan(r->prev_done) ? r->prev_done : 0;
  const double since = (double)r->done - before;
  if (since <= 0) return;
  r->rate = since / r->elapsed;
  if (!dead) r->eta = (double)(r->total - r->done) / r->rate;
}

/* ---- printing ------------------------------------------------------- */

static void duration(char *buf, size_t n, double s) {
  if (!isfinite(s))
    snprintf(buf, n, "unknown");
  else if (s < 60)
    snprintf(buf, n, "%.0fs", s);
  else if (s < 3600)
    snprintf(buf, n, "%dm%02ds", (int)(s / 60), (int)s % 60);
  else
    snprintf(buf, n, "%dh%02dm", (int)(s / 3600), (int)(s / 60) % 60);
}

/* A JSON string (the few characters that need escaping in our texts). */
static void jstr(const char *key, const char *s, int comma) {
  printf("\"%s\": \"", key);
  for (; *s; s++) {
    if (*s == '"' || *s == '\\')
      printf("\\%c", *s);
    else if (*s == '\n')
      printf("\\n");
    else if ((unsigned char)*s < 0x20)
      printf("\\u%04x", *s);
    else
      putchar(*s);
  }
  printf("\"%s", comma ? ", " : "");
}

static void jnum(const char *key, double x, int comma) {
  if (isfinite(x))
    printf("\"%s\": %.6g%s", key, x, comma ? ", " : "");
  else
    printf("\"%s\": null%s", key, comma ? ", " : "");
}

/* "segments_recorded" (the row count, null without a table) and
 * "segments": one object per row, null without a table or when its rows are
 * not the engine's. */
static void print_segments_json(const report *r) {
  if (r->segments >= 0)
    printf("\"segments_recorded\": %ld, \"segments\": ", r->segments);
  else
    printf("\"segments_recorded\": null, \"segments\": ");
  if (r->segments < 0 || (r->segments > 0 && !r->seg_rows)) {
    printf("null, ");
    return;
  }
  printf("[");
  for (long i = 0; i < r->segments; i++) {
    const ssw_h5peek_segment *s = &r->seg_rows[i];
    printf("%s{", i ? ", " : "");
    jstr("start_time", s->start_time, 1);
    jstr("end_time", s->end_time, 1);
    jstr("status", s->status, 1);
    printf("\"mpi_ranks\": %d, \"omp_threads\": %d, \"points_computed\": "
           "%llu, \"points_done\": %llu, \"wall_time_s\": %.17g}",
           (int)s->mpi_ranks, (int)s->omp_threads,
           (unsigned long long)s->points_computed,
           (unsigned long long)s->points_done, s->wall_time_s);
  }
  printf("], ");
}

/* One line of the state, for people. */
static const char *verdict(const report *r) {
  if (r->malformed[0]) {
    static char why[520];
    snprintf(why, sizeof why, "malformed: %s", r->malformed);
    return why;
  }
  if (strcmp(r->status, SSW_STATUS_COMPLETE) == 0) return SSW_STATUS_COMPLETE;
  if (strcmp(r->status, SSW_STATUS_INTERRUPTED) == 0)
    return "interrupted: run the same command again to resume";
  if (r->lock_held == 1) return "running (a process holds the run lock)";
  return "not running: the file says running, but no process holds the "
         "run lock (<output>.lock), so the run was killed or crashed (or "
         "is a build without the lock); run the same command again to "
         "resume";
}

static void print_json(const report *r) {
  printf("{");
  jstr("file", r->path, 1);
  jstr("status", r->status, 1);
  jstr("state", verdict(r), 1);
  printf("\"points_total\": %llu, \"points_done\": %llu, "
         "\"points_in_file\": %llu, \"points_in_journals_only\": %llu, ",
         (unsigned long long)r->total, (unsigned long long)r->done,
         (unsigned long long)r->in_file, (unsigned long long)r->in_journals);
  printf("\"points_marked_done_without_results\": %llu, ",
         (unsigned long long)r->forged);
  printf("\"journals\": %zu, \"torn_records\": %zu, ", r->journals, r->torn);
  printf("\"journals_read\": %s, ", r->journals_read ? "true" : "false");
  jstr("start_time", r->start_time, 1);
  jstr("end_time", r->end_time, 1);
  jstr("hostname", r->host, 1);
  jnum("elapsed_s", r->elapsed, 1);
  jnum("rate_points_per_s", r->rate, 1);
  jnum("eta_s", r->eta, 1);
  jnum("seconds_since_last_write", r->idle, 1);
  printf("\"lock\": {\"probed\": %s, \"held\": %s, \"pid\": ",
         r->lock_held >= 0 ? "true" : "false",
         r->lock_held == 1 ? "true" : "false");
  if (r->lock_held == 1 && r->lock_pid > 0)
    printf("%ld, ", r->lock_pid);
  else
    printf("null, ");
  jstr("holder", r->lock_holder, 1);
  jstr("path", r->lock_path, 0);
  printf("}, ");
  print_segments_json(r);
  jstr("history", r->history ? r->history : "", 0);
  printf("}\n");
}

static void print_text(const report *r) {
  char eta[32], idle[32], el[32];
  duration(eta, sizeof eta, r->eta);
  duration(idle, sizeof idle, r->idle);
  duration(el, sizeof el, r->elapsed);
  const double pct = r->total ? 100.0 * (double)r->done / (double)r->total : 0;
  printf("%s\n", r->path);
  printf("  state     %s\n", verdict(r));
  printf("  points    %llu/%llu done (%.1f%%): %llu in the file, %llu more "
         "only in %zu journal(s)%s\n",
         (unsigned long long)r->done, (unsigned long long)r->total, pct,
         (unsigned long long)r->in_file, (unsigned long long)r->in_journals,
         r->journals, r->torn ? " (torn records skipped)" : "");
  if (r->forged)
    printf("  note      %llu point(s) marked done hold no results (fill "
           "values): not counted\n",
           (unsigned long long)r->forged);
  if (!r->journals_read) printf("  note      %s\n", r->journal_note);
  printf("  started   %s on %s\n", r->start_time, r->host);
  if (r->end_time[0])
    printf("  ended     %s (last finished segment)\n", r->end_time);
  if (isfinite(r->rate) && isfinite(r->eta))
    printf("  rate      %.3g points/s over %s, ETA %s\n", r->rate, el, eta);
  else if (isfinite(r->rate))
    printf("  rate      %.3g points/s over %s, until its last write (not "
           "running: no ETA)\n",
           r->rate, el);
  printf("  last write %s ago (file or journals)\n", idle);
  if (r->lock_held == 1 && r->lock_holder[0])
    printf("  lock      held (%s) on %s\n", r->lock_holder, r->lock_path);
  else if (r->lock_held == 1 && r->lock_pid > 0)
    printf("  lock      held by PID %ld on %s\n", r->lock_pid, r->lock_path);
  else if (r->lock_held == 1)
    printf("  lock      held on %s\n", r->lock_path);
  else
    printf("  lock      none found (fcntl probe of the run's lock files and "
           "the output)\n");
  if (r->segments >= 0)
    printf("  segments  %ld recorded (/segments)\n", r->segments);
  for (long i = 0; r->seg_rows && i < r->segments; i++) {
    const ssw_h5peek_segment *s = &r->seg_rows[i];
    printf("    %ld. %s .. %s %s: %llu computed, %llu done, %d rank(s) x %d "
           "thread(s), %.3f s\n",
           i + 1, s->start_time, s->end_time, s->status,
           (unsigned long long)s->points_computed,
           (unsigned long long)s->points_done, (int)s->mpi_ranks,
           (int)s->omp_threads, s->wall_time_s);
  }
  if (!r->history || !*r->history) return;
  printf("  history   (the file's CF history, one run segment a line)\n");
  for (const char *p = r->history; *p;) { /* each line indented */
    const size_t n = strcspn(p, "\n");
    if (n) printf("    %.*s\n", (int)n, p);
    p += n + (p[n] == '\n');
  }
}

/* ---- the command ---------------------------------------------------- */

static int parse(int argc, char **argv, const char **path, int *json) {
  static const struct option opts[] = {{"json", no_argument, 0, 'j'},
                                       {"help", no_argument, 0, 'h'},
                                       {0, 0, 0, 0}};
  opterr = 0;
  optind = 1;
  *json = 0;
  for (int c; (c = getopt_long(argc, argv, ":h", opts, NULL)) != -1;) {
    if (c == 'h') return fputs(status_usage, stdout), -1;
    if (c != 'j') return ssw_cli_bad_option(argv[optind - 1], c, opts);
    *json = 1;
  }
  SSW_CHECK(optind + 1 == argc, SSW_ERR_USAGE,
            "expected one output FILE (see --help)");
  *path = argv[optind];
  return SSW_SUCCESS;
}

int ssw_cli_status(int argc, char **argv) {
  const char *path = NULL;
  int json = 0;
  const int rc = parse(argc, argv, &path, &json);
  if (rc < 0) return 0;
  if (rc != SSW_SUCCESS) return ssw_cli_fail("status", rc);
  report r = {.path = path, .segments = -1, .lock_held = -1};
  int status = read_file(&r);
  if (status == SSW_SUCCESS) {
    probe_lock(&r);
    r.idle = idle_seconds(path);
    rate_eta(&r);
    json ? print_json(&r) : print_text(&r);
    if (r.malformed[0])
      status = SSW_RAISE(SSW_ERR_IO,
                         "'%s' is malformed: %s (not as sleighsweep wrote "
                         "it)",
                         path, r.malformed);
  }
  free(r.config);
  free(r.history);
  free(r.seg_rows);
  return status == SSW_SUCCESS ? 0 : ssw_cli_fail("status", status);
}
