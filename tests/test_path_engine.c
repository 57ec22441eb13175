/* The engine's computed path (extraction's sample nodes) against the exact
 * path along whole trajectories: both reconstructions, every regime, the
 * tractrix, at the default settings. */
#include <stdlib.h>

#include "sleighsweep/analytic.h"
#include "sleighsweep/extract.h"
#include "sleighsweep/model.h"
#include "test_util.h"

typedef struct {
  ssw_orbit o;
  double t[2], x[2], y[2]; /* last exact node per direction */
  double pos, head;        /* largest errors */
  double extent;
  long nodes;
} tracker;

static void on_node(void *ctx, int dir, double t, double phi, double x,
                    double y, double w, double v, double H) {
  tracker *k = ctx;
  const int d = dir > 0;
  double dx, dy;
  ssw_analytic_orbit_advance(&k->o, k->t[d], t, &dx, &dy);
  k->x[d] += dx, k->y[d] += dy, k->t[d] = t;
  k->pos = fmax(k->pos, hypot(x - k->x[d], y - k->y[d]));
  k->head = fmax(k->head, fabs(phi - ssw_analytic_orbit_heading(&k->o, t)));
  k->extent = fmax(k->extent, hypot(k->x[d], k->y[d]));
  k->nodes++;
  (void)w, (void)v, (void)H;
}

static tracker track(const ssw_tensor *t, int regime, double w0, double v0,
                     int recon, const char *method, double eta) {
  tracker k = {0};
  EXPECT(ssw_analytic_orbit(t, regime, w0, v0, &k.o) == 0, "orbit");
  ssw_integrator o;
  ssw_integrator_defaults(&o);
  o.recon = recon;
  if (method) o.method = ssw_method_find(method);
  if (eta > 0) o.eta = eta, o.rtol = 0; /* fixed steps: the order */
  ssw_traj r;
  EXPECT(ssw_extract_run(t, regime, w0, v0, &o, on_node, &k, &r) == 0,
         "extract");
  return k;
}

/* 3-point least-squares slope of log error against log eta. */
static double slope(const double eta[3], const double e[3]) {
  double sx = 0, sy = 0, num = 0, den = 0;
  for (int k = 0; k < 3; k++)
    sx += log(eta[k]), sy += log(e[k]);
  for (int k = 0; k < 3; k++) {
    num += (log(eta[k]) - sx / 3) * (log(e[k]) - sy / 3);
    den += (log(eta[k]) - sx / 3) * (log(eta[k]) - sx / 3);
  }
  return num / den;
}

/* For each reconstruction: the defaults' errors (printed: the figures of
 * the note), the observed order of the largest path error for
 * hamel2 and hamel4 (3-point fit, fails below q - 0.5) and for hamel8 (one
 * halving from the default eta 0.8, where its error is still well above
 * round-off: ratio at least 2^7.5). The tractrix, whose heading turns by pi
 * within ~2 / Arate, is not yet asymptotic at hamel4's eta 0.8, hence the
 * smaller starting steps, and hamel8 at eta = 0.1 on the exact path to 1e-11 of
 * max(1, extent) (a few hundred nodes of round-off). */
static void check(const char *what, ssw_body bd, ssw_params p, double w0,
                  double v0) {
  ssw_tensor t;
  int regime;
  EXPECT(ssw_model_tensor(&bd, &p, &t) == 0, "%s: invalid body", what);
  ssw_model_classify(&t, SSW_ZERO_TOL_DEFAULT, &t, &regime);
  for (int recon = 0; recon < SSW_RECON_COUNT; recon++) {
    const char *rn = ssw_recon_name(recon);
    const tracker k = track(&t, regime, w0, v0, recon, NULL, 0);
    printf("defaults %-18s %-8s nodes %5ld  heading err %.2e  path err "
           "%.2e (extent %.3g)\n",
           what, rn, k.nodes, k.head, k.pos, k.extent);
    /* The default rtol (1e-10) steers the extracted quantities; the path
     * they come from is held to the same promise as them: 10 rtol. */
    EXPECT(k.pos <= 1e-9 * fmax(1, k.extent) && k.head <= 1e-9,
           "%s/%s: defaults: path error %.3g (extent %.3g), heading %.3g", what,
           rn, k.pos, k.extent, k.head);
    const struct {
      const char *m;
      int q;
      double eta0;
    } ms[] = {{"hamel2", 2, 0.2}, {"hamel4", 4, 0.4}};
    for (int m = 0; m < 2; m++) {
      double eta[3], e[3];
      for (int j = 0; j < 3; j++) {
        eta[j] = ms[m].eta0 / (1 << j);
        e[j] = track(&t, regime, w0, v0, recon, ms[m].m, eta[j]).pos;
      }
      const double q = slope(eta, e);
      EXPECT(q >= ms[m].q - 0.5,
             "%s/%s/%s: path error order %.2f (errors "
             "%.2e %.2e %.2e)",
             what, rn, ms[m].m, q, e[0], e[1], e[2]);
    }
    const double e1 = track(&t, regime, w0, v0, recon, "hamel8", 0.8).pos;
    const double e2 = track(&t, regime, w0, v0, recon, "hamel8", 0.4).pos;
    EXPECT(e1 / e2 >= pow(2, 7.5),
           "%s/%s/hamel8: path errors %.2e, %.2e "
           "(ratio %.1f)",
           what, rn, e1, e2, e1 / e2);
    const tracker f = track(&t, regime, w0, v0, recon, "hamel8", 0.1);
    EXPECT(f.pos <= 1e-11 * fmax(1, f.extent) && f.head <= 1e-11,
           "%s/%s: hamel8 at eta 0.1: path error %.3g, heading %.3g", what, rn,
           f.pos, f.head);
  }
}

int main(void) {
  const ssw_body seed = SEED_BODY;
  ssw_body dry = seed;
  dry.rho = 0;
  ssw_params p = SEED_PARAMS(0.0);
  check("seed b=0", seed, p, 1.5, 1.0);
  p = SEED_PARAMS(0.1);
  check("seed b=0.1", seed, p, 1.5, 1.0);
  p = SEED_PARAMS(0.0), p.a = 0.0;
  check("spin_reversal", seed, p, 1.5, 1.0);
  p = SEED_PARAMS(0.0), p.a = 0.15;
  check("classical a=0.15", dry, p, 1.5, 1.0);
  p = SEED_PARAMS(0.1), p.r = 0.3, p.s = -0.2;
  check("Model II", seed, p, -0.7, 1.2);
  ssw_body tr = dry;
  tr.I0 = 0;
  p = SEED_PARAMS(0.1), p.a = 0.5;
  check("tractrix", tr, p, 1.5, 1.0);
  p = SEED_PARAMS(0.0), p.theta = 0.0;
  check("line_to_line fluid", seed, p, 1.5, 1.0);
  return TEST_RESULT();
}
