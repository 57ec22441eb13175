/* The batch kernel on every instruction set this build and CPU have (the
 * baseline with libm's fma per lane, AVX2 with FMA, AVX-512 with FMA) and
 * at every width (one 4-lane vector, two side by side, one 8-lane vector)
 * gives the same bits: random bodies with circulation, drag and a
 * time-dependent force, both reconstructions, hamel2 and hamel8, steps
 * from 1e-3 to 3 of the body's time scale. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../src/integrators/batch.h"
#include "sleighsweep/model.h"
#include "sleighsweep/stepper.h"
#include "test_util.h"
#include "wide_batch.h"

enum { NB = SSW_KW_WIDE, MACRO = 12 };

/* A force with its own time scale (libm's cos: the same call on every
 * kernel, lane by lane). */
static void force(const double par[SSW_FORCE_PARS], double t, double *Q1,
                  double *Q2) {
  *Q1 = par[0] * cos(par[1] * t);
  *Q2 = par[2] * cos(par[3] * t + 0.5);
}

/* Eight states of body d (effects by `kind`: bit 0 drag, bit 1 force) and
 * their steps. */
static int setup(const wb_draw *d0, int kind, const char *scheme, ssw_coeffs *c,
                 ssw_state s[NB], double h[NB]) {
  wb_draw d = *d0;
  if (kind & 1) d.body.drag_w = 0.3, d.body.drag_v = 0.7, d.body.drag_wv = 0.2;
  if (kind & 2) d.body.Gamma = 0.4;
  ssw_model_tensor(&d.body, &d.p, &d.t);
  if (ssw_stepper_bind(&d.t, ssw_method_find(scheme), c) != 0) return -1;
  if (kind & 2) {
    const double par[SSW_FORCE_PARS] = {0.3, 1.7, -0.2, 0.9};
    c->e.force = force;
    memcpy(c->e.force_par, par, sizeof par);
  }
  double w0[NB], v0[NB];
  wb_states(&d, NB, w0, v0);
  const double rate = sqrt(2 * d.H * ssw_model_E(&d.t)) / c->e.D;
  const double wmax = sqrt(2 * d.H * c->e.M / c->e.D);
  static const int order[NB] = {5, 0, 7, 2, 4, 1, 6, 3};
  for (int l = 0; l < NB; l++) {
    ssw_stepper_init(c, w0[l], v0[l], &s[l]);
    h[l] = 1e-3 * pow(3000.0, order[l] / 7.0) / fmax(rate, wmax);
  }
  return 0;
}

/* MACRO macro steps of the eight states by kernel `k` on instruction set
 * `isa`: 0 two 4-lane calls, 1 two 4-lane vectors, 2 one 8-lane vector. */
static void run(int k, int isa, const ssw_coeffs *c, const double h[NB],
                int recon, ssw_state s[NB]) {
  for (int i = 0; i < MACRO; i++)
    if (k == 0) {
      ssw_batch_compose4_on(isa, c, h, recon, s);
      ssw_batch_compose4_on(isa, c, h + 4, recon, s + 4);
    } else if (k == 1)
      ssw_batch_compose4x2_on(isa, c, h, recon, s);
    else
      ssw_batch_compose8(c, h, recon, s);
}

int main(void) {
  const int avx2 = ssw_batch_isa_available(SSW_ISA_AVX2);
  const int avx512 = ssw_batch_isa_available(SSW_ISA_AVX512);
  printf("kernels compared: baseline%s%s\n", avx2 ? ", AVX2+FMA" : "",
         avx512 ? ", AVX-512+FMA" : "");
  const char *schemes[] = {"hamel2", "hamel8"};
  int cases = 0, moved = 0;
  for (int i = 0; i < 24; i++) {
    wb_draw d;
    if (wb_draw_one(977, i, &d) != 0) continue;
    const int kind = i % 4, recon = (i / 4) % SSW_RECON_COUNT;
    const char *scheme = schemes[(i / 8) % 2];
    ssw_coeffs c;
    ssw_state s0[NB], ref[NB], got[NB];
    double h[NB];
    if (setup(&d, kind, scheme, &c, s0, h) != 0) continue;
    memcpy(ref, s0, sizeof ref);
    run(0, SSW_ISA_BASE, &c, h, recon, ref);
    for (int l = 0; l < NB; l++)
      moved += ref[l].x != s0[l].x && ref[l].W1 != s0[l].W1;
    for (int k = 0; k < 3; k++)
      for (int isa = SSW_ISA_BASE; isa <= SSW_ISA_AVX2; isa++) {
        if ((isa == SSW_ISA_AVX2 && !avx2) || (k == 2 && isa != SSW_ISA_AVX2) ||
            (k == 2 && !avx512) || (k == 0 && isa == SSW_ISA_BASE))
          continue;
        memcpy(got, s0, sizeof got);
        run(k, isa, &c, h, recon, got);
        cases++;
        for (int l = 0; l < NB; l++)
          EXPECT(!memcmp(&got[l], &ref[l], sizeof got[l]),
                 "body %d (%s, effects %d, recon %d), kernel %d on isa %d, "
                 "lane %d: x %.17g vs %.17g, W1 %.17g vs %.17g",
                 i, scheme, kind, recon, k, isa, l, got[l].x, ref[l].x,
                 got[l].W1, ref[l].W1);
      }
  }
  /* Every lane was stepped, and the comparisons ran. */
  EXPECT(moved >= 20 * NB, "only %d lanes moved", moved);
  EXPECT(cases >= 20 * (avx2 ? 3 : 1), "only %d comparisons", cases);
  printf("%d kernel runs compared bit for bit with the baseline\n", cases);
  return test_failures ? 1 : 0;
}
