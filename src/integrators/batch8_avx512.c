/* The batch kernel on 8 lanes, one AVX-512 register: this file alone is
 * compiled with -mavx512f -mavx512dq -mavx512vl -mfma (CMakeLists.txt),
 * and it runs only where the CPU has them (ssw_batch_wide_available). */
#include "batch.h"

#if SSW_BATCH_X86
#pragma GCC diagnostic ignored "-Wpsabi" /* vectors stay inside this file */

#define SSW_KW SSW_KW_WIDE
#include "batch_kernel.h"

#if !defined(__AVX512F__) || !defined(__FMA__)
#error "batch8_avx512.c must be compiled with -mavx512f/dq/vl -mfma"
#endif

void ssw_batch_compose8(const ssw_coeffs *c, const double h[SSW_KW_WIDE],
                        int recon, ssw_state s[SSW_KW_WIDE]) {
  compose_n(1, c, h, recon, s);
}
#endif
