/* The batch kernel on 4 lanes for AVX2 with FMA: this file alone is
 * compiled with -mavx2 -mfma (CMakeLists.txt), so that its multiply-adds
 * are the FMA instruction (batch_kernel.h, VFMA), and it runs only where
 * the CPU has both (ssw_batch_isa). */
#include "batch.h"

#if SSW_BATCH_X86
#pragma GCC diagnostic ignored "-Wpsabi" /* vectors stay inside this file */

#define SSW_KW SSW_KW_NARROW
#include "batch_kernel.h"

#if !defined(__AVX2__) || !defined(__FMA__)
#error "batch4_avx2.c must be compiled with -mavx2 -mfma"
#endif

void ssw_batch_compose4_avx2(const ssw_coeffs *c, const double h[SSW_KW_NARROW],
                             int recon, ssw_state s[SSW_KW_NARROW]) {
  compose_n(1, c, h, recon, s);
}

void ssw_batch_compose4x2_avx2(const ssw_coeffs *c,
                               const double h[2 * SSW_KW_NARROW], int recon,
                               ssw_state s[2 * SSW_KW_NARROW]) {
  compose_n(2, c, h, recon, s);
}
#endif
