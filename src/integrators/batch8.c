/* Which kernels run: the instruction sets the CPU has, and whether 8 lanes
 * run as one AVX-512 vector (batch8_avx512.c; the caller asks
 * ssw_batch_wide_available). A latency-bound chain (Newton for the
 * cubic, the half-turn) then carries 8 trajectories where the 4-lane
 * kernel carries 4. Without x86-64, or under ThreadSanitizer, the build
 * has no 8-lane kernel and the stepper runs two 4-lane vectors side by
 * side (ssw_batch_compose4x2), as on x86-64 CPUs without AVX-512. */
#include "batch.h"

#include <stdlib.h> /* getenv, atoi: outside the #if, for both branches */

#if !SSW_BATCH_X86 /* else batch8_avx512.c */
void ssw_batch_compose8(const ssw_coeffs *c, const double h[SSW_KW_WIDE],
                        int recon, ssw_state s[SSW_KW_WIDE]) {
  ssw_batch_compose4x2(c, h, recon, s);
}
#endif

int ssw_batch_isa_available(int isa) {
  if (isa == SSW_ISA_BASE) return 1;
#if SSW_BATCH_X86
  __builtin_cpu_init();
  const int avx2 =
      __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  if (isa == SSW_ISA_AVX2) return avx2;
  if (isa == SSW_ISA_AVX512)
    return avx2 && __builtin_cpu_supports("avx512f") &&
           __builtin_cpu_supports("avx512dq") &&
           __builtin_cpu_supports("avx512vl");
#endif
  return 0;
}

int ssw_batch_isa(void) {
  static int known = -1;
  int k = __atomic_load_n(&known, __ATOMIC_RELAXED);
  if (k < 0) {
    k = ssw_batch_isa_available(SSW_ISA_AVX2) ? SSW_ISA_AVX2 : SSW_ISA_BASE;
    __atomic_store_n(&known, k, __ATOMIC_RELAXED);
  }
  return k;
}

int ssw_batch_wide_available(void) {
  static int known = -1;
  int k = __atomic_load_n(&known, __ATOMIC_RELAXED);
  if (k < 0) {
    k = ssw_batch_isa_available(SSW_ISA_AVX512) && !ssw_batch_narrow_forced();
    __atomic_store_n(&known, k, __ATOMIC_RELAXED);
  }
  return k;
}

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
