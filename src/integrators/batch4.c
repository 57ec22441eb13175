/* The batch kernel on 4 lanes for the baseline instruction set (two SSE2
 * halves, libm's fma for each lane), and the choice between it and the
 * AVX2 kernel (batch4_avx2.c), the same bits either way. Also the single
 * base step (ssw_hamel_step), on this width. */
#include "batch.h"

#pragma GCC diagnostic ignored "-Wpsabi" /* vectors stay inside this file */

#define SSW_KW SSW_KW_NARROW
#include "batch_kernel.h"

/* One 4-lane vector, and eight states as two 4-lane vectors whose chains
 * are stepped side by side, base step by base step (for CPUs without
 * AVX-512): the same IEEE operations per lane (batch_kernel.h,
 * solve_cubic). */
static void compose4_base(const ssw_coeffs *c, const double *h, int recon,
                          ssw_state *s) {
  compose_n(1, c, h, recon, s);
}
static void compose4x2_base(const ssw_coeffs *c, const double *h, int recon,
                            ssw_state *s) {
  compose_n(2, c, h, recon, s);
}

void ssw_batch_compose4_on(int isa, const ssw_coeffs *c,
                           const double h[SSW_KW_NARROW], int recon,
                           ssw_state s[SSW_KW_NARROW]) {
#if SSW_BATCH_X86
  if (isa != SSW_ISA_BASE) {
    ssw_batch_compose4_avx2(c, h, recon, s);
    return;
  }
#endif
  compose4_base(c, h, recon, s);
}

void ssw_batch_compose4x2_on(int isa, const ssw_coeffs *c,
                             const double h[2 * SSW_KW_NARROW], int recon,
                             ssw_state s[2 * SSW_KW_NARROW]) {
#if SSW_BATCH_X86
  if (isa != SSW_ISA_BASE) {
    ssw_batch_compose4x2_avx2(c, h, recon, s);
    return;
  }
#endif
  compose4x2_base(c, h, recon, s);
}

void ssw_batch_compose4(const ssw_coeffs *c, const double h[SSW_KW_NARROW],
                        int recon, ssw_state s[SSW_KW_NARROW]) {
  ssw_batch_compose4_on(ssw_batch_isa(), c, h, recon, s);
}

void ssw_batch_compose4x2(const ssw_coeffs *c,
                          const double h[2 * SSW_KW_NARROW], int recon,
                          ssw_state s[2 * SSW_KW_NARROW]) {
  ssw_batch_compose4x2_on(ssw_batch_isa(), c, h, recon, s);
}

/* The baseline build: libm's fma per lane, the kernels' bits (tests
 * only). */
void ssw_hamel_step(const ssw_coeffs *c, double h, int recon, ssw_state *s) {
  if (c->e.mass) {
    ssw_mass_hamel_step(c, h, recon, s);
    return;
  }
  vstate v;
  ssw_state lanes[SSW_KW];
  for (int l = 0; l < SSW_KW; l++)
    lanes[l] = *s;
  load(lanes, &v);
  const vd hv = (vd){0} + h;
  const vd tm = v.t + 0.5 * hv; /* the base step's node */
  if (c->e.force && ssw_model_dissipative(&c->e))
    base_step(1, &c->e, &hv, &tm, recon, 1, 1, &v);
  else if (c->e.force)
    base_step(1, &c->e, &hv, &tm, recon, 0, 1, &v);
  else if (ssw_model_dissipative(&c->e))
    base_step(1, &c->e, &hv, &tm, recon, 1, 0, &v);
  else
    base_step(1, &c->e, &hv, &tm, recon, 0, 0, &v);
  v.t += hv;
  store(&v, lanes);
  *s = lanes[0];
}
