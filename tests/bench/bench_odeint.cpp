// Boost.odeint's Bulirsch-Stoer behind the C interface of bench_odeint.h.
#include "bench_odeint.h"

#include <array>
#include <cmath>
#include <memory>
#include <new>

#include <boost/numeric/odeint.hpp>

namespace {
namespace odeint = boost::numeric::odeint;
using state = std::array<double, BENCH_ODEINT_DIM>;
using stepper = odeint::bulirsch_stoer<state>;
} // namespace

struct bench_odeint {
  std::unique_ptr<stepper> bs; // built for eps (its tolerances are fixed)
  double eps = -1.0;
};

extern "C" bench_odeint *bench_odeint_create(void) {
  return new (std::nothrow) bench_odeint;
}

extern "C" void bench_odeint_destroy(bench_odeint *b) { delete b; }

extern "C" void bench_odeint_reset(bench_odeint *b, double eps) {
  if (!b->bs || eps != b->eps) {
    b->bs.reset(new stepper(eps, eps, 1.0, 0.0));
    b->eps = eps;
  }
  b->bs->reset();
}

// Backward steps (h < 0) integrate the reversed field y' = -f(y) forward
// in s = -t. After a rejection odeint's Bulirsch-Stoer compares signed
// step sizes (new_h < dt), so with dt < 0 its step collapsed tenfold every
// fourth step: 4573 steps per trajectory instead of 28 on these bodies
// (reported upstream in 2012, still in Boost 1.74).
extern "C" int bench_odeint_step(bench_odeint *b, bench_ode_fn f, void *ctx,
                                 double *t, double *h, double *y) {
  state x;
  for (int i = 0; i < BENCH_ODEINT_DIM; i++)
    x[i] = y[i];
  const double dir = *h < 0 ? -1.0 : 1.0;
  auto sys = [f, ctx, dir](const state &s, state &ds, double) {
    f(s.data(), ds.data(), ctx);
    if (dir < 0)
      for (double &d : ds)
        d = -d;
  };
  double s = dir * *t, ds = dir * *h;
  for (int tries = 0; tries < 100; tries++) {
    if (!std::isfinite(ds) || ds <= 0.0) return -1;
    if (b->bs->try_step(sys, x, s, ds) == odeint::success) {
      for (int i = 0; i < BENCH_ODEINT_DIM; i++)
        y[i] = x[i];
      *t = dir * s, *h = dir * ds;
      return 0;
    }
  }
  return -1;
}
