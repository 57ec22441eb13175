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

/* The instruction sets the kernels are compiled for: the baseline (SSE2
 * halves on x86-64; any other architecture), AVX2 with FMA, and AVX-512
 * (F, DQ, VL) with FMA for the 8-lane vector. Each kernel writes its
 * multiply-adds as IEEE fma (batch_kernel.h, VFMA), which the baseline
 * computes with libm's exactly rounded fma: every instruction set gives
 * the same bits. x86-64 builds without ThreadSanitizer (SSW_NO_IFUNC)
 * have all three; the others the baseline alone. */
enum { SSW_ISA_BASE, SSW_ISA_AVX2, SSW_ISA_AVX512, SSW_ISA_COUNT };
#if defined(__x86_64__) && !defined(SSW_NO_IFUNC)
#define SSW_BATCH_X86 1
#else
#define SSW_BATCH_X86 0
#endif

/* Whether this build has the kernels of `isa` and the CPU can run them. */
int ssw_batch_isa_available(int isa);
/* The instruction set of the 4-lane kernels: AVX2 where available, else
 * the baseline (asked of the CPU once). */
int ssw_batch_isa(void);

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

/* ssw_batch_compose4 and ssw_batch_compose4x2 on instruction set `isa`
 * (SSW_ISA_BASE, or any other for AVX2; the caller checks that it is
 * available): the same bits on every one. */
void ssw_batch_compose4_on(int isa, const ssw_coeffs *c,
                           const double h[SSW_KW_NARROW], int recon,
                           ssw_state s[SSW_KW_NARROW]);
void ssw_batch_compose4x2_on(int isa, const ssw_coeffs *c,
                             const double h[2 * SSW_KW_NARROW], int recon,
                             ssw_state s[2 * SSW_KW_NARROW]);

/* The AVX2 kernels (batch4_avx2.c; x86-64 builds only). */
void ssw_batch_compose4_avx2(const ssw_coeffs *c, const double h[SSW_KW_NARROW],
                             int recon, ssw_state s[SSW_KW_NARROW]);
void ssw_batch_compose4x2_avx2(const ssw_coeffs *c,
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
