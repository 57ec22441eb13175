/* The batch kernel on 8 lanes, one AVX-512 register: compiled for AVX-512
 * (F, DQ, VL) and called only where the CPU has it (the caller asks
 * ssw_batch_wide_available). A latency-bound chain (Newton for the
 * cubic, the half-turn) then carries 8 trajectories where the 4-lane
 * kernel carries 4. Without x86-64, or under ThreadSanitizer, the build
 * has no 8-lane kernel and the stepper runs two 4-lane vectors side by
 * side (ssw_batch_compose4x2), as on x86-64 CPUs without AVX-512. */
#include "batch.h"

#include <stdlib.h> /* getenv, atoi: outside the #if, for both branches */

#pragma GCC diagnostic ignored "-Wpsabi" /* vectors stay inside this file */

#if defined(__x86_64__) && !defined(SSW_NO_IFUNC)
#define SSW_KW SSW_KW_WIDE
#define SSW_KERNEL_COMPOSE ssw_batch_compose8
#define SSW_KERNEL_TARGET __attribute__((target("avx512f,avx512dq,avx512vl")))
#include "batch_kernel.h"

int ssw_batch_wide_available(void) {
  static int known = -1;
  int k = __atomic_load_n(&known, __ATOMIC_RELAXED);
  if (k < 0) {
    __builtin_cpu_init();
    k = __builtin_cpu_supports("avx512f") &&
        __builtin_cpu_supports("avx512dq") &&
        __builtin_cpu_supports("avx512vl") && !ssw_batch_narrow_forced();
    __atomic_store_n(&known, k, __ATOMIC_RELAXED);
  }
  return k;
}
#else
void ssw_batch_compose8(const ssw_coeffs *c, const double h[SSW_KW_WIDE],
                        int recon, ssw_state s[SSW_KW_WIDE]) {
  ssw_batch_compose4x2(c, h, recon, s);
}

int ssw_batch_wide_available(void) { return 0; }
#endif

/* SSW_KERNEL_LANES=4 keeps one 4-lane vector per kernel call (README,
 * "Results across machines"): the same bits, for comparing the kernels. */
int ssw_batch_narrow_forced(void) {
  static int known = -1;
  int k = __atomic_load_n(&known, __ATOMIC_RELAXED);
  if (k < 0) {
    const char *env = getenv("SSW_KERNEL_LANES");
    k = env && atoi(env) == SSW_KW_NARROW;
    __atomic_store_n(&known, k, __ATOMIC_RELAXED);
  }
  return k;
}
