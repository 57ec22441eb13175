#!/usr/bin/python3
"""No confident nonsense from any scheme (README "Accuracy",
docs/theory/step-control.md "Honest estimates"). On a seeded batch of
bodies from the wide domain, with circulation (transitions above the
critical energy and periodic motions below it) and with drag (C = c K,
whose whole rest has a closed form, and random C, whose decay rate has
one), every scheme of `sleighsweep methods`, at the default rtol and at
the fixed steps eta = 0.1 and 0.5, either
- refuses the body (exit 2, with a reason), or
- flags the result not converged (a failure flag: no_estimate,
  energy_drift, a step cap ...), or
- reports error estimates that bound its errors against the closed form:
  at least BOUND of the (result, quantity) pairs of each scheme and mode,
  none beyond WORST times its estimate (rtol_not_met results included:
  their estimates still say how good they are).
And the case that printed converged nonsense before (rattle at eta 0.5
with circulation: dphi off by 4e5, flags 0) is flagged not converged.

Truth: the engine's closed forms under "analytic" (checked against
independent integrations by test_circulation_closed, test_drag and
test_damped), and for C = c K the settling time ln(100) / (2 c) (the
energy decays as H0 exp(-2 c t) exactly).

Usage: test_honest_schemes.py SLEIGHSWEEP
"""
import json
import math
import random
import subprocess
import sys

from sswtest import check, exit_status

BIN = sys.argv[1]
BOUND = 0.95  # share of errors the estimates bound, per scheme and mode
WORST = 10.0  # no error beyond this many times its estimate
PER_KIND = 2  # bodies of each kind
MODES = (("rtol", None), ("eta", "0.1"), ("eta", "0.5"))
# Failure flags (names.h SSW_TRAJ_FLAGS): the result is not converged.
FAILURE_NAMES = ("forward_step_cap", "backward_step_cap", "nonfinite",
                 "no_peak", "near_critical", "no_estimate", "energy_drift")


def point(args):
    p = subprocess.run([BIN, "point"] + args, capture_output=True, text=True,
                       timeout=600)
    if p.returncode == 2:
        return None, p.stderr.strip()
    check(p.returncode == 0, "point %s: exit %d %s"
          % (" ".join(args), p.returncode, p.stderr[-300:]))
    return (json.loads(p.stdout) if p.returncode == 0 else None), ""


def schemes():
    out = subprocess.run([BIN, "methods"], capture_output=True, text=True,
                         check=True).stdout
    return [line.split()[0] for line in out.splitlines() if line.strip()]


def body_args(rnd):
    lg = lambda lo, hi: lo * (hi / lo) ** rnd.random()  # noqa: E731
    A = lg(0.1, 5)
    b = dict(theta=rnd.uniform(0.05, 3.1), a=rnd.uniform(-3, 3),
             b=rnd.uniform(-3, 3), r=rnd.choice([-1, 1]) * rnd.uniform(0.2, 2),
             s=rnd.uniform(-2, 2), A=A, B=A * rnd.uniform(0.02, 0.99),
             m=lg(0.1, 10), I0=lg(0.01, 5), rho=lg(0.05, 10))
    return b, lg


def args_of(d):
    out = []
    for k, v in d.items():
        out += ["--" + k, repr(v)]
    return out


def draw(rnd, kind):
    """A body and initial state of one kind; None when the draw does not
    fit (no critical energy, say)."""
    b, lg = body_args(rnd)
    if kind in ("circ_transition", "circ_periodic", "drag_circ"):
        b["Gamma"] = rnd.choice([-1, 1]) * lg(0.5, 50)
    probe, _ = point(args_of(b) + ["--no-error-estimate", "--eta", "1"])
    if probe is None:
        return None
    t = probe["tensor"]
    J, M, L2 = t["J"], t["M"], t["L2"]
    truth = {}
    if kind.startswith("circ"):
        Hc = probe["analytic"].get("critical_energy")
        if not Hc:
            return None
        f = lg(0.02, 0.9) if kind == "circ_periodic" else lg(1.2, 50)
        w0 = math.sqrt(2 * f * Hc / J) * rnd.choice([-1, 1])
        b.update(omega0=w0, v0=0.0)
    else:
        b.update(omega0=rnd.choice([-1, 1]) * lg(0.05, 5),
                 v0=rnd.choice([-1, 1]) * lg(0.05, 5))
        if kind == "drag_cK":
            c = lg(0.01, 1)
            b.update({"drag-w": c * J, "drag-v": c * M, "drag-wv": -c * L2})
            truth["t_settle"] = math.log(100) / (2 * c)
        else:
            b.update({"drag-w": lg(0.01, 1) * J, "drag-v": lg(0.01, 1) * M,
                      "drag-wv": 0.0})
    return args_of(b), truth


def compare(j, truth):
    """(quantity, error, estimate) of every measured quantity with a
    closed form."""
    out = []
    for k, est in j.get("error_estimate", {}).items():
        x = j.get(k)
        ref = truth.get(k, j.get("analytic", {}).get(k))
        if isinstance(ref, bool) or not isinstance(ref, (int, float)):
            continue
        if not isinstance(x, (int, float)) or isinstance(x, bool):
            continue
        if est is None:
            out.append((k, abs(x - ref), math.nan))
        else:
            out.append((k, abs(x - ref), est))
    return out


def failed(j):
    return not j["converged"]


def main():
    rnd = random.Random(20261128)
    kinds = ("circ_transition", "circ_periodic", "drag_cK", "drag_random",
             "drag_circ")
    cases = []
    while len(cases) < PER_KIND * len(kinds):
        kind = kinds[len(cases) % len(kinds)]
        d = draw(rnd, kind)
        if d:
            cases.append((kind, d[0], d[1]))
    names = schemes()
    check(len(names) >= 8, "methods lists %d schemes" % len(names))
    for sch in names:
        for mk, mv in MODES:
            n = bounded = flagged = refused = 0
            worst = (0.0, "")
            for kind, args, truth in cases:
                extra = ["--scheme", sch] + (["--" + mk, mv] if mv else [])
                j, why = point(args + extra)
                if j is None:
                    refused += 1
                    check(why != "", "%s refused %s without a reason"
                          % (sch, kind))
                    continue
                if failed(j):
                    flagged += 1
                    check(j["flags"] != 0, "%s %s: not converged, flags 0"
                          % (sch, kind))
                    continue
                for q, err, est in compare(j, truth):
                    n += 1
                    check(not math.isnan(est),
                          "%s %s %s: converged, %s without an estimate"
                          % (sch, mk, kind, q))
                    if err <= est:
                        bounded += 1
                    ratio = err / est if est > 0 else math.inf
                    if ratio > worst[0]:
                        worst = (ratio, "%s %s (flags %d) %s" % (
                            kind, q, j["flags"], " ".join(args + extra)))
            mode = mk + ("=" + mv if mv else "")
            print("%-7s %-7s %3d pairs, %5.1f%% bounded, %2d flagged, "
                  "%2d refused, worst error/estimate %.3g"
                  % (sch, mode, n, 100.0 * bounded / max(n, 1), flagged,
                     refused, worst[0]))
            check(bounded >= BOUND * n, "%s %s: estimates bound %d of %d"
                  % (sch, mode, bounded, n))
            check(worst[0] <= WORST, "%s %s: an error %.3g times its "
                  "estimate: %s" % (sch, mode, worst[0], worst[1]))
    # The case that printed converged nonsense (dphi 1.7e6 against -4.3).
    j, _ = point("--theta 2.0195145702391057 --a -1.6910008213398058 "
                 "--b 2.94917804020393 --r -1.1043695979757604 "
                 "--s 0.36658621863372876 --A 0.15116728504162402 "
                 "--B 0.05850246017399941 --m 2.904071053585274 "
                 "--I0 0.4385270166492013 --rho 0.04025054110939042 "
                 "--Gamma 84.75947150775094 --omega0 -0.06788843144368553 "
                 "--v0 -2.869944571195517 --scheme rattle --eta 0.5".split())
    check(j is not None and not j["converged"] and j["flags"] != 0,
          "rattle at eta 0.5 with circulation: converged %s flags %s"
          % (j and j["converged"], j and j["flags"]))
    sys.exit(exit_status())


if __name__ == "__main__":
    main()
