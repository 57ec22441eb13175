/* The batch kernel on 4 lanes: AVX2 when the CPU has it, chosen at run
 * time by target_clones, two SSE2 halves otherwise. Also the single base
 * step (ssw_hamel_step), on this width. */
#include "batch.h"

#pragma GCC diagnostic ignored "-Wpsabi" /* vectors stay inside this file */

#define SSW_KW SSW_KW_NARROW
#define SSW_KERNEL_COMPOSE ssw_batch_compose4
#if defined(SSW_NO_IFUNC) || !defined(__x86_64__)
#define SSW_KERNEL_TARGET
#else
#define SSW_KERNEL_TARGET __attribute__((target_clones("avx2", "default")))
#endif
#include "batch_kernel.h"

void ssw_hamel_step(const ssw_coeffs *c, double h, int recon, ssw_state *s) {
  vstate v;
  ssw_state lanes[SSW_KW];
  for (int l = 0; l < SSW_KW; l++)
    lanes[l] = *s;
  load(lanes, &v);
  const vd hv = (vd){0} + h;
  if (c->e.drag)
    base_step(&c->e, &hv, recon, 1, &v);
  else
    base_step(&c->e, &hv, recon, 0, &v);
  store(&v, lanes);
  *s = lanes[0];
}
