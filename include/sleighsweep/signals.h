/* Stop signals (SIGTERM, SIGUSR1, SIGINT) and the watchdog around
 * collective HDF5 calls. No MPI: async-signal-safe flags only. */
#ifndef SLEIGHSWEEP_SIGNALS_H
#define SLEIGHSWEEP_SIGNALS_H

#ifdef __cplusplus
extern "C" {
#endif

/** Installs SIGTERM/SIGUSR1/SIGINT handlers that record the signal (the
 * schedule then stops handing out work) and make the registered journal
 * durable at once. */
void ssw_signals_install(void);

/** The stop signal this process received (0 when none). */
int ssw_signals_received(void);

/** Registers the file descriptor the handler fdatasyncs (-1: none). */
void ssw_signals_sync_fd(int fd);

/** Arms (1) or disarms (0) the watchdog around collective HDF5 calls: a
 * call not returning within $SSW_IO_TIMEOUT seconds (default 900) exits the
 * process, which ends the job instead of hanging it. */
void ssw_watchdog(int on);

#ifdef __cplusplus
}
#endif
#endif
