/* Runs files through the fuzz target without libFuzzer: the regression
 * inputs and the seed corpus as a CTest, or one crash input by hand. */
#define _XOPEN_SOURCE 700 /* dirent, stat */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Largest input replayed; libFuzzer runs use -max_len=4096. */
#define REPLAY_MAX_BYTES (1u << 20)

static int run_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return fprintf(stderr, "replay: cannot open %s\n", path), 1;
  uint8_t *buf = malloc(REPLAY_MAX_BYTES);
  const size_t n = buf ? fread(buf, 1, REPLAY_MAX_BYTES, f) : 0;
  const int bad = !buf || ferror(f);
  fclose(f);
  if (bad) {
    free(buf);
    return fprintf(stderr, "replay: cannot read %s\n", path), 1;
  }
  /* A copy of exactly n bytes, so ASan sees reads past the input. */
  uint8_t *data = malloc(n ? n : 1);
  if (!data) return free(buf), 1;
  memcpy(data, buf, n);
  free(buf);
  LLVMFuzzerTestOneInput(data, n);
  free(data);
  return 0;
}

static int by_name(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every regular file of a directory whose name does not start with '.',
 * in name order (so that runs are reproducible). */
static int run_dir(const char *dir, int *count) {
  DIR *d = opendir(dir);
  if (!d) return fprintf(stderr, "replay: cannot open %s\n", dir), 1;
  char **names = NULL;
  size_t n = 0, cap = 0;
  int status = 0;
  for (struct dirent *e; (e = readdir(d));) {
    if (e->d_name[0] == '.') continue;
    if (n == cap) {
      char **bigger =
          realloc(names, (cap = cap ? 2 * cap : 64) * sizeof *names);
      if (!bigger) {
        status = 1;
        break;
      }
      names = bigger;
    }
    const size_t len = strlen(dir) + strlen(e->d_name) + 2;
    if (!(names[n] = malloc(len))) {
      status = 1;
      break;
    }
    snprintf(names[n++], len, "%s/%s", dir, e->d_name);
  }
  closedir(d);
  if (n) qsort(names, n, sizeof *names, by_name);
  for (size_t i = 0; i < n; i++) {
    struct stat st;
    if (status == 0 && stat(names[i], &st) == 0 && S_ISREG(st.st_mode)) {
      status = run_file(names[i]);
      ++*count;
    }
    free(names[i]);
  }
  free(names);
  return status;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s FILE|DIR ...\n", argv[0]);
    return 2;
  }
  int count = 0, status = 0;
  for (int i = 1; i < argc && status == 0; i++) {
    struct stat st;
    if (stat(argv[i], &st) != 0)
      status = (fprintf(stderr, "replay: no such file %s\n", argv[i]), 1);
    else if (S_ISDIR(st.st_mode))
      status = run_dir(argv[i], &count);
    else {
      status = run_file(argv[i]);
      count++;
    }
  }
  if (status == 0 && count == 0)
    status = (fprintf(stderr, "replay: no input files\n"), 1);
  if (status == 0) printf("replay: %d inputs ok\n", count);
  return status;
}
