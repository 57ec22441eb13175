#!/usr/bin/python3
"""The driven sleigh through the command line: `point` with the forcing
options (each option's effect), its JSON names (docs/output.md), the
refusals (rattle, torque_amp without forcing_freq, a bad shape, an
unwritable --trajectory; the path itself: test_forced_path.py) and a
sweep's refusal of a grid point with torque_amp but no forcing_freq
(exit 2, no file; the forced sweep itself, and its sample trajectories:
test_forced_sweep.py)."""
import json
import math
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
from sswtest import ENV, check, exit_status  # noqa: E402

EXE = os.path.abspath(sys.argv[1])
DRAG = ["--drag-w", "0.3", "--drag-v", "0.5", "--drag-wv", "0.05"]
FORCED = ["--forcing-freq", "2", "--torque-amp", "0.3"] + DRAG
NAMES = ("mean_omega", "mean_v", "mean_power", "mean_path_radius",
         "floquet_abs", "floquet_arg", "lyapunov", "energy_growth_slope")


def point(*args):
    p = subprocess.run([EXE, "point", *args], capture_output=True, text=True,
                       env=ENV)
    return p, (json.loads(p.stdout) if p.returncode == 0 else None)


def rel(x, ref):
    return abs(x - ref) / max(abs(ref), 1e-300)


# The JSON's names, on a periodic attractor.
p, j = point(*FORCED)
check(p.returncode == 0, f"forced point: exit {p.returncode}: {p.stderr}")
if j:
    check(j["attractor"] == "periodic" and j["cycle_periods"] == 1 and
          j["converged"] and j["flags"] == 0, f"attractor {j['attractor']}")
    for k in NAMES:
        check(k in j and k in j["error_estimate"], f"{k} missing")
    for k in ("floquet_abs", "floquet_arg"):
        check(len(j[k]) == 2 and len(j["error_estimate"][k]) == 2, k)
    check(j["floquet_abs"][0] >= j["floquet_abs"][1], "moduli descending")
    for k in ("mean_omega", "mean_v", "mean_path_radius",
              "energy_growth_slope", "floquet_product"):
        check(k in j["analytic"], f"analytic.{k} missing")
    check(j["energy_growth_slope"] is None and
          j["analytic"]["energy_growth_slope"] is None, "no growth here")
    prod = j["floquet_abs"][0] * j["floquet_abs"][1]
    check(rel(prod, j["analytic"]["floquet_product"]) <= 1e-10,
          f"Floquet product {prod} vs {j['analytic']['floquet_product']}")
    check(rel(j["mean_path_radius"], j["mean_v"] / j["mean_omega"]) <= 1e-15,
          "mean_path_radius = mean_v / mean_omega")
    check(abs(j["power_balance"]) <= 1e-12 * j["mean_dissipation"],
          f"power balance {j['power_balance']}")
    # the Lyapunov spectrum (docs/theory/forcing.md): descending, each
    # ln |mu_i| / T within the two estimates or 1e-8, the sum identity to
    # 1e-9; no kicked exact map here
    T = j["forcing"]["period"]
    for i in range(2):
        x = math.log(j["floquet_abs"][i]) / T
        e = (j["error_estimate"]["lyapunov"][i] +
             j["error_estimate"]["floquet_abs"][i] / j["floquet_abs"][i] / T)
        check(abs(j["lyapunov"][i] - x) <= max(1e-8, e),
              f"lyapunov[{i}] {j['lyapunov'][i]} vs ln|mu|/T {x}")
    check(j["lyapunov"][0] >= j["lyapunov"][1] and
          abs(j["lyapunov_sum_defect"]) <= 1e-9 and
          j["analytic"]["lyapunov"] == [None, None],
          f"lyapunov {j['lyapunov']} defect {j['lyapunov_sum_defect']}")

    # --forcing-phase: the same cycle shifted in time, so the same means
    # and another stroboscopic point.
    p2, k2 = point(*FORCED, "--forcing-phase", "1.0")
    check(p2.returncode == 0, f"phase: {p2.stderr}")
    if k2:
        check(rel(k2["mean_omega"], j["mean_omega"]) <= 1e-9 and
              rel(k2["mean_v"], j["mean_v"]) <= 1e-9, "phase moved a mean")
        check(abs(k2["cycle_state"][0] - j["cycle_state"][0]) > 1e-3,
              "the phase did not move the cycle's stroboscopic point")
    # --forcing-freq: another cycle.
    p3, k3 = point(*FORCED[2:], "--forcing-freq", "3")
    check(p3.returncode == 0 and rel(k3["mean_v"], j["mean_v"]) > 1e-3,
          f"forcing_freq had no effect: {p3.stderr}")
    # --torque-amp: the mean grows as its square (small forcing).
    p4, k4 = point(*FORCED[:2], "--torque-amp", "0.15", *DRAG)
    check(p4.returncode == 0 and 3.5 < j["mean_v"] / k4["mean_v"] < 4.5,
          f"torque_amp: mean_v ratio {j['mean_v'] / k4['mean_v']}")
    # --forcing-shape kicks: the kicked cycle (no small-forcing form).
    p5, k5 = point(*FORCED, "--forcing-shape", "kicks")
    check(p5.returncode == 0 and k5["forcing"]["shape"] == "kicks" and
          k5["attractor"] == "periodic" and
          rel(k5["mean_omega"], j["mean_omega"]) > 1e-3 and
          k5["analytic"]["mean_v"] is None,
          f"kicks: {p5.stderr}")

# No drag: unbounded growth by the averaged law.
p, j = point("--forcing-freq", "2", "--torque-amp", "0.2", "--omega0", "0",
             "--v0", "0")
check(p.returncode == 0 and j["attractor"] == "accelerating" and
      rel(j["energy_growth_slope"],
          j["analytic"]["energy_growth_slope"]) <= 1e-3,
      f"accelerating: {p.stderr or j['attractor']}")

# Refusals: exit 2 with the reason.
for args, said in (
        (FORCED + ["--scheme", "rattle"], "time-dependent force"),
        (["--torque-amp", "0.3"], "needs forcing_freq > 0"),
        (FORCED + ["--forcing-shape", "square"], "--forcing-shape"),
        (FORCED + ["--trajectory", "/nonexistent/p.csv"], "cannot write")):
    p, _ = point(*args)
    check(p.returncode == 2 and said in p.stderr,
          f"{args}: exit {p.returncode}: {p.stderr}")

# A sweep's refusal with forcing on: before anything runs.
SWEEP = ("[body]\nm = 1\nI0 = 0.5\nrho = 1\ndrag_w = 0.3\ndrag_v = 0.5\n"
         "[grid]\ntheta = 60deg\na = 0.2\nA = 0.5\nB = 0.3\n{grid}"
         "[ensemble]\ntrajectories = 2\n{out}")
for grid, out, said in (
        ("forcing_freq = 0, 2\ntorque_amp = 0.3\n", "",
         "torque_amp = 0.3 needs forcing_freq > 0"),):
    with tempfile.TemporaryDirectory() as tmp:
        cfg = os.path.join(tmp, "forced.ini")
        with open(cfg, "w") as f:
            f.write(SWEEP.format(grid=grid, out=out))
        p = subprocess.run([EXE, "run", cfg], capture_output=True, text=True,
                           env=ENV, cwd=tmp)
        check(p.returncode == 2 and said in p.stderr and
              not any(n.endswith(".h5") for n in os.listdir(tmp)),
              f"forced sweep {grid!r}: exit {p.returncode}: {p.stderr}")

sys.exit(exit_status())
