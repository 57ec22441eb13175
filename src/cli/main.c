/* sleighsweep executable: dispatches to the command-line interface. */
#include "sleighsweep/cli.h"

int main(int argc, char **argv) { return ssw_cli_main(argc, argv); }
