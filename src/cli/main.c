/* sleighsweep executable: dispatches to the command-line interface, after
 * making OpenMP's idle threads wait passively unless the user chose. */
#include <stdlib.h>
#include <unistd.h>

#include "sleighsweep/cli.h"

#if defined(__has_include)
#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#endif
#endif
#ifndef RUNNING_ON_VALGRIND
#define RUNNING_ON_VALGRIND 0
#endif

/* libgomp reads OMP_WAIT_POLICY and GOMP_SPINCOUNT once, when it is
 * loaded, before main(): a setenv() here would come too late. Unset, its
 * threads spin about 300000 rounds at every barrier and whenever they
 * wait for work, which on a busy node takes the core from the process
 * that would run (2 threads cost 3x the CPU of one in a loaded sweep).
 * So when the user set neither, the process executes itself again, once,
 * with OMP_WAIT_POLICY=passive: the same pid, arguments and otherwise the
 * same environment (the variable being set, it does not loop). A user's
 * OMP_WAIT_POLICY or GOMP_SPINCOUNT is kept. Not under valgrind, whose
 * child would run unchecked; if the exec fails, libgomp's default stays
 * (and `--version` says so). */
static void passive_wait(char **argv) {
  if (getenv("OMP_WAIT_POLICY") || getenv("GOMP_SPINCOUNT") ||
      RUNNING_ON_VALGRIND)
    return;
  if (setenv("OMP_WAIT_POLICY", "passive", 1) != 0) return;
  execv("/proc/self/exe", argv);
  unsetenv("OMP_WAIT_POLICY");
}

int main(int argc, char **argv) {
  passive_wait(argv);
  return ssw_cli_main(argc, argv);
}
