/* The Hamel compositions' batch kernel, in two widths (internal to
 * src/integrators): 4 lanes (one AVX2 register, or two SSE2 halves) and 8
 * lanes (one AVX-512 register, only where the CPU has AVX-512). Both
 * compile the same body (batch_kernel.h), so every lane performs the same
 * scalar sequence of IEEE operations at either width. */
#ifndef SSW_INTEGRATORS_BATCH_H
#define SSW_INTEGRATORS_BATCH_H

#include "sleighsweep/model.h" /* SSW_SIMD_CLONES, SSW_NO_IFUNC */
#include "sleighsweep/stepper.h"

/* The widths, and the lanes of the batch (SSW_LANES) in whole kernels. */
#define SSW_KW_NARROW 4
#define SSW_KW_WIDE 8
_Static_assert(SSW_LANES % SSW_KW_WIDE == 0 && SSW_LANES % SSW_KW_NARROW == 0,
               "SSW_LANES is a whole number of kernels of either width");

/* One macro step of the bound composition on SSW_KW_NARROW (resp.
 * SSW_KW_WIDE) lanes. */
void ssw_batch_compose4(const ssw_coeffs *c, const double h[SSW_KW_NARROW],
                        int recon, ssw_state s[SSW_KW_NARROW]);
void ssw_batch_compose8(const ssw_coeffs *c, const double h[SSW_KW_WIDE],
                        int recon, ssw_state s[SSW_KW_WIDE]);

/* Whether this build has the 8-lane kernel and the CPU can run it
 * (AVX-512 F, DQ and VL). */
int ssw_batch_wide_available(void);

#endif
