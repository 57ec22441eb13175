/* Which kernels run: the instruction sets the CPU has, and whether 8 lanes
 * run as one AVX-512 vector (batch8_avx512.c; the caller asks
 * ssw_batch_wide_available, which measures it against two AVX2 vectors
 * once). A latency-bound chain (Newton for the
 * cubic, the half-turn) then carries 8 trajectories where the 4-lane
 * kernel carries 4. Without x86-64, or under ThreadSanitizer, the build
 * has no 8-lane kernel and the stepper runs two 4-lane vectors side by
 * side (ssw_batch_compose4x2), as on x86-64 CPUs without AVX-512. */
#include "batch.h"

#include <math.h>   /* INFINITY, M_PI */
#include <stdlib.h> /* getenv, atoi: outside the #if, for both branches */
#include <time.h>

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

#if SSW_BATCH_X86
static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Whether one 8-lane AVX-512 vector steps eight states faster than two
 * 4-lane AVX2 vectors side by side on this CPU, measured once: the
 * default scheme on the benchmark's seed body, 64 macro steps per kernel,
 * the best of 5 interleaved rounds (about a millisecond). Where the zmm
 * divide is slow (24 cycles of latency on Intel's AVX-512 cores against
 * 14 for ymm) the two chains can win. Both kernels give the same bits
 * (test_kernel_isa), so the choice changes the time alone. */
static int wide_is_faster(void) {
  const ssw_body body = {
      .m = 1.0, .I0 = 0.5, .rho = 1.0, .k_rot = SSW_KROT_PAPERS};
  const ssw_params par = {M_PI / 3, 0.2, 0.0, 0.0, 0.0, 0.5, 0.3};
  ssw_tensor t;
  ssw_coeffs c;
  ssw_model_tensor(&body, &par, &t);
  /* The timing load: the 8th-order composition, 17 base steps per call. */
  const ssw_method *m = ssw_method_find("hamel8");
  if (!m || ssw_stepper_bind(&t, m, &c) != 0) return 1;
  double best[2] = {INFINITY, INFINITY}, h[SSW_KW_WIDE];
  for (int round = 0; round < 5; round++)
    for (int k = 0; k < 2; k++) {
      ssw_state s[SSW_KW_WIDE];
      for (int l = 0; l < SSW_KW_WIDE; l++) {
        ssw_stepper_init(&c, 1.5 - 0.1 * l, 1.0 + 0.1 * l, &s[l]);
        h[l] = 0.01 * (1.0 + 0.1 * l);
      }
      const double t0 = now();
      for (int i = 0; i < 64; i++)
        if (k)
          ssw_batch_compose8(&c, h, SSW_RECON_EXP, s);
        else
          ssw_batch_compose4x2_avx2(&c, h, SSW_RECON_EXP, s);
      const double dt = now() - t0;
      best[k] = dt < best[k] ? dt : best[k];
    }
  return best[1] <= best[0];
}
#else
static int wide_is_faster(void) { return 0; }
#endif

int ssw_batch_wide_available(void) {
  static int known = -1;
  int k = __atomic_load_n(&known, __ATOMIC_RELAXED);
  if (k < 0) {
    k = ssw_batch_isa_available(SSW_ISA_AVX512) && !ssw_batch_narrow_forced() &&
        wide_is_faster();
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
