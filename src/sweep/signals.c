/* Stop signals and the HDF5 watchdog (include/sleighsweep/signals.h). */
#include "sleighsweep/signals.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static volatile sig_atomic_t stop_signal = 0;
/* This rank's journal while a schedule runs (-1: none). */
static volatile sig_atomic_t journal_fd = -1;

/* Makes every appended record durable at once (fdatasync is async-signal-
 * safe): under mpirun a Ctrl-C becomes SIGTERM followed by SIGKILL about a
 * second later, so what is finished must not wait for the final epoch. */
static void on_signal(int sig) {
  const int saved = errno;
  stop_signal = sig;
  if (journal_fd >= 0) fdatasync(journal_fd);
  errno = saved;
}

void ssw_signals_install(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGTERM, &sa, NULL);
  sigaction(SIGUSR1, &sa, NULL);
  sigaction(SIGINT, &sa, NULL);
}

int ssw_signals_received(void) { return (int)stop_signal; }

void ssw_signals_sync_fd(int fd) { journal_fd = fd; }

/* Watchdog for collective HDF5 calls: parallel HDF5 cannot recover from a
 * write failing on one rank (the ranks then wait in different collectives
 * forever). If a flush epoch has not returned after SSW_IO_TIMEOUT seconds
 * (default 900), the rank exits: mpirun/srun then end the job, and what
 * is durable (the journals) is kept for the next run. */
static void on_alarm(int sig) {
  static const char msg[] =
      "sleighsweep: an HDF5 write did not finish within SSW_IO_TIMEOUT "
      "seconds (a rank failed mid-write?); aborting, finished work is in the "
      "journals: rerun to resume\n";
  ssize_t rc = write(2, msg, sizeof msg - 1);
  (void)rc;
  _exit(128 + sig);
}

void ssw_watchdog(int on) {
  static unsigned seconds = 0;
  if (seconds == 0) {
    const char *env = getenv("SSW_IO_TIMEOUT");
    const long v = env ? strtol(env, NULL, 10) : 0;
    seconds = v > 0 ? (unsigned)v : 900;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_alarm;
    sigaction(SIGALRM, &sa, NULL);
  }
  alarm(on ? seconds : 0);
}
