"""A sweep with circulation, checked in the file against formulas written
here from docs/theory/circulation.md (an independent oracle): over the
ellipse offset r the torque kappa = rho Gamma r moves the critical energy
H_c = D kappa^2 / (2 E) across the sweep's energy, so the grid holds both
kinds of point. Below H_c: regime `periodic`, period
T = 2 pi D / sqrt(2 E (H_c - H)) and heading change per period
2 pi c1 sgn(kappa) (|mu| / sqrt(mu^2 - 1) - 1), mu = kappa / g_m,
g_m = sqrt(2 H E / D). Above it: the arcs kept apart, |transition angle|
2 |c1| psi_e on g > 0 and 2 |c1| (pi - psi_e) on g < 0, cos psi_e = mu.
Each within 10 rtol (the accuracy the docs promise), and so are the
file's analytic twins (circulation's closed form); the path of trajectory 0
within 1e-8 of circulation's exact path. Usage: test_circulation_sweep.py
SLEIGHSWEEP MPIEXEC"""
import math
import os
import subprocess
import sys
import tempfile

import h5py
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sswtest import ENV, check, exit_status  # noqa: E402

EXE, MPIEXEC = sys.argv[1], sys.argv[2]
RHO, GAMMA, H = 1.0, 2.0, 0.5
TOL = 1e-9
CONFIG = f"""[body]
m = 1
I0 = 0.5
rho = {RHO}
Gamma = {GAMMA}
[grid]
theta = 40deg, 110deg
a = 0.2
r = -0.4, 0.02, 0.1, 0.5
s = 0.1
A = 0.5
B = 0.3
[ensemble]
trajectories = 12
energy = {H}
[output]
file = {{out}}
"""


def expected(J, M, L1, L2, Z, kappa):
    D = M * J - L2 * L2
    E = J * Z * Z + 2 * Z * L1 * L2 + M * L1 * L1
    c1 = math.sqrt(D) * (Z * L2 + M * L1) / E
    gm = math.sqrt(2 * H * E / D)
    mu = abs(kappa) / gm
    out = {"Hc": D * kappa ** 2 / (2 * E)}
    if mu > 1:
        out["T"] = 2 * math.pi * D / math.sqrt(2 * E * (out["Hc"] - H))
        out["hpp"] = (2 * math.pi * c1 * math.copysign(1, kappa)
                      * (mu / math.sqrt(mu * mu - 1) - 1))
    else:
        psi = math.acos(kappa / gm)
        out["up"] = abs(2 * c1 * psi)
        out["down"] = abs(2 * c1 * (math.pi - psi))
    return out


with tempfile.TemporaryDirectory() as tmp:
    cfg, out = os.path.join(tmp, "c.ini"), os.path.join(tmp, "c.h5")
    with open(cfg, "w") as f:
        f.write(CONFIG.format(out=out))
    p = subprocess.run([MPIEXEC, "-np", "2", EXE, "run", "--quiet", cfg],
                       env=ENV, text=True, capture_output=True, timeout=300)
    check(p.returncode == 0, f"run: {p.returncode} {p.stderr}")
    with h5py.File(out, "r") as f:
        check(f.attrs["Gamma"] == GAMMA, f"Gamma attribute {f.attrs['Gamma']}")
        r_axis = f["r"][()]
        d = {k: f[k][()] for k in f if isinstance(f[k], h5py.Dataset)}
    periodic = asym = 0
    for idx in np.ndindex(d["J"].shape):
        kappa = RHO * GAMMA * r_axis[idx[3]]
        e = expected(*(d[k][idx] for k in ("J", "M", "L1", "L2", "Z")), kappa)
        check(abs(d["critical_energy"][idx] - e["Hc"]) <= 1e-14 * e["Hc"],
              f"{idx}: critical_energy {d['critical_energy'][idx]}")
        check(abs(d["path_error_max"][idx]) <= 1e-8,
              f"{idx}: path error {d['path_error_max'][idx]}")
        check(d["converged_fraction"][idx] == 1.0 and d["flags"][idx] == 0,
              f"{idx}: converged {d['converged_fraction'][idx]}, "
              f"flags {d['flags'][idx]}")
        if "T" in e:
            periodic += 1
            check(d["regime"][idx] == 4, f"{idx}: regime {d['regime'][idx]}")
            eT = abs(d["period"][idx] - e["T"]) / e["T"]
            eh = (abs(d["heading_per_period"][idx] - e["hpp"])
                  / max(abs(e["hpp"]), 1))
            check(eT <= TOL and eh <= TOL, f"{idx}: period {eT:.2g}, "
                  f"heading per period {eh:.2g}")
            for name, want in (("analytic_period", e["T"]),
                               ("analytic_heading_per_period", e["hpp"])):
                check(abs(d[name][idx] - want) <= 1e-12 * max(abs(want), 1),
                      f"{idx}: twin {name} {d[name][idx]!r} vs {want!r}")
            check(np.isnan(d["transition_angle"][idx]),
                  f"{idx}: a periodic point has no transition angle")
        else:
            asym += 1
            check(d["regime"][idx] != 4, f"{idx}: regime {d['regime'][idx]}")
            for name, want in (("transition_angle", e["up"]),
                               ("transition_angle_lower", e["down"]),
                               ("analytic_transition_angle", e["up"]),
                               ("analytic_transition_angle_lower",
                                e["down"])):
                got = d[name][idx]
                if np.isnan(got):  # no trajectory on that arc
                    continue
                check(abs(got - want) <= TOL * max(want, 1),
                      f"{idx}: {name} {got!r} vs {want!r}")
            up = d["upper_fraction"][idx]
            check(0 < up < 1, f"{idx}: both arcs hold trajectories ({up})")
    print(f"circulation sweep: {periodic} periodic and {asym} asymptotic "
          "points against the theory")
    check(periodic >= 4 and asym >= 4, f"{periodic} periodic, {asym} not")
sys.exit(exit_status())
