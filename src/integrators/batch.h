/* The Hamel compositions' batch kernel, in two widths (internal to
 * src/integrators): 4 lanes (one AVX2 register, or two SSE2 halves) and 8
 * lanes (one AVX-512 register, only where the CPU has AVX-512). Both
 * compile the same body (batch_kernel.h), so every lane performs the same
 * scalar sequence of IEEE operations at either width. */
#ifndef SSW_INTEGRATORS_BATCH_H
#define SSW_INTEGRATORS_BATCH_H

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

/* Run-time choice of the instruction set by target_clones (an ifunc).
 * ThreadSanitizer's runtime must start before any instrumented code and
 * cannot run an ifunc resolver at relocation time, so its builds take the
 * baseline path, and have no 8-lane kernel. */
#if defined(__SANITIZE_THREAD__)
#define SSW_NO_IFUNC 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define SSW_NO_IFUNC 1
#endif
#endif

#endif
