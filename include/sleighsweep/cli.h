/* Command-line interface: `sleighsweep point`, `sleighsweep run`. */
#ifndef SLEIGHSWEEP_CLI_H
#define SLEIGHSWEEP_CLI_H

/** Entry point of the executable; returns the process exit status
 * (0 success, 2 bad input, 3 interrupted but durable, 1 other failure). */
int ssw_cli_main(int argc, char **argv);

#endif
