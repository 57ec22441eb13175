/* The Hamel compositions' batch kernel, in two widths (internal to
 * src/integrators): 4 lanes (one AVX2 register, or two SSE2 halves) and 8
 * lanes (one AVX-512 register where the CPU has AVX-512, else two 4-lane
 * vectors stepped side by side). All compile the same body
 * (batch_kernel.h), so every lane performs the same scalar sequence of
 * IEEE operations at any width. */
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

/* Eight states as two 4-lane vectors stepped side by side (the wide
 * kernel where the CPU has no AVX-512, or the build no 8-lane kernel). */
void ssw_batch_compose4x2(const ssw_coeffs *c,
                          const double h[2 * SSW_KW_NARROW], int recon,
                          ssw_state s[2 * SSW_KW_NARROW]);

/* Whether this build has the 8-lane kernel and the CPU can run it
 * (AVX-512 F, DQ and VL), and SSW_KERNEL_LANES=4 does not forbid it. */
int ssw_batch_wide_available(void);

/* Whether the environment sets SSW_KERNEL_LANES=4: one 4-lane vector per
 * kernel call, neither the AVX-512 kernel nor two vectors side by side. */
int ssw_batch_narrow_forced(void);

/* One macro step of the bound Hamel composition with the moving mass
 * (mass_step.c): one state, scalar, sub-step i's frame K(t), sigma(t)
 * taken at its midpoint node t + c_i h. */
void ssw_mass_compose(const ssw_coeffs *c, double h, int recon, ssw_state *s);
/* Its base step alone (ssw_hamel_step with the moving mass). */
void ssw_mass_hamel_step(const ssw_coeffs *c, double h, int recon,
                         ssw_state *s);

#endif
