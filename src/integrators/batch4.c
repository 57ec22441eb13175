/* The batch kernel on 4 lanes: AVX2 when the CPU has it, chosen at run
 * time by target_clones, two SSE2 halves otherwise. Also the single base
 * step (ssw_hamel_step), on this width. */
#include "batch.h"

#pragma GCC diagnostic ignored "-Wpsabi" /* vectors stay inside this file */

/* The clones stay static behind a plain function: clang names a
 * multiversioned function's symbols its own way, which a call from another
 * file does not find. */
#define SSW_KW SSW_KW_NARROW
#define SSW_KERNEL_COMPOSE compose4
#define SSW_KERNEL_TARGET static SSW_SIMD_CLONES
#include "batch_kernel.h"

void ssw_batch_compose4(const ssw_coeffs *c, const double h[SSW_KW_NARROW],
                        int recon, ssw_state s[SSW_KW_NARROW]) {
  compose4(c, h, recon, s);
}

/* Eight states as two 4-lane vectors whose chains are stepped side by side,
 * base step by base step (for CPUs without AVX-512): the same IEEE
 * operations per lane as compose4 (batch_kernel.h, solve_cubic). */
static SSW_SIMD_CLONES void compose4x2(const ssw_coeffs *c,
                                       const double h[2 * SSW_KW], int recon,
                                       ssw_state s[2 * SSW_KW]) {
  compose_n(2, c, h, recon, s);
}

void ssw_batch_compose4x2(const ssw_coeffs *c,
                          const double h[2 * SSW_KW_NARROW], int recon,
                          ssw_state s[2 * SSW_KW_NARROW]) {
  compose4x2(c, h, recon, s);
}

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
