/* Prints, for each argument, the radians ssw_angle_parse gives it (%.17g)
 * or "error: MESSAGE": the C side of tests/test_angle.py. */
#include <stdio.h>

#include "sleighsweep/angle.h"
#include "sleighsweep/error.h"

int main(int argc, char **argv) {
  for (int i = 1; i < argc; i++) {
    double rad;
    char why[256];
    if (ssw_angle_parse(argv[i], &rad, NULL, NULL, why, sizeof why) ==
        SSW_SUCCESS)
      printf("%.17g\n", rad);
    else
      printf("error: %s\n", why);
  }
  return 0;
}
