#!/usr/bin/python3
"""The moving internal mass through the command line: `point` with
--mass-p, --mass-x, --mass-y, --mass-amp (each option's effect as
docs/config.md says), mass_p = 0 written out is bit for bit the default,
the JSON (the mass under "forcing", analytic.* of eq. 6), the refusals
(a negative mass, no forcing_freq, rattle), and a sweep's config with the
mass on but no forcing_freq refused with exit 2 before anything runs (a
sweep with the mass: test_forced_sweep)."""
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
from sswtest import ENV, check, exit_status  # noqa: E402

EXE = os.path.abspath(sys.argv[1])
DRAG = ["--drag-w", "0.3", "--drag-v", "0.5", "--drag-wv", "0.05"]
MASS = ["--forcing-freq", "2", "--mass-p", "0.3", "--mass-x", "0.5",
        "--mass-amp", "0.1"] + DRAG


def point(*args):
    p = subprocess.run([EXE, "point", *args], capture_output=True, text=True,
                       env=ENV)
    return p, (json.loads(p.stdout) if p.returncode == 0 else None)


def rel(x, ref):
    return abs(x - ref) / max(abs(ref), 1e-300)


def strip(text):
    """The JSON without its provenance line (git revision)."""
    return "\n".join(ln for ln in text.splitlines()
                     if '"git_revision"' not in ln)


# mass_p = 0 written out: the same bytes as without it, forced or not.
for base in (["--forcing-freq", "2", "--torque-amp", "0.3"] + DRAG, []):
    p0, _ = point(*base)
    p1, _ = point(*base, "--mass-p", "0", "--mass-x", "0.4", "--mass-amp",
                  "0.2", "--mass-y", "0.1")
    check(p0.returncode == 0 and p0.stdout == p1.stdout,
          f"mass_p = 0 changed the output ({base})")

p, j = point(*MASS)
check(p.returncode == 0, f"mass point: exit {p.returncode}: {p.stderr}")
if j:
    f = j["forcing"]
    check(f["mass_p"] == 0.3 and f["mass_x"] == 0.5 and f["mass_y"] == 0 and
          f["mass_amp"] == 0.1 and f["torque_amp"] == 0, f"forcing: {f}")
    check(j["attractor"] == "periodic" and j["converged"], j["attractor"])
    # eq. 6 at a = 0.1 on this body: relative error ~1.2e-3 (test_mass).
    for k in ("mean_omega", "mean_v"):
        check(rel(j[k], j["analytic"][k]) <= 1e-2,
              f"{k} {j[k]} vs eq. 6 {j['analytic'][k]}")
    prod = j["floquet_abs"][0] * j["floquet_abs"][1]
    check(rel(prod, j["analytic"]["floquet_product"]) <= 1e-10,
          f"Floquet product {prod} vs {j['analytic']['floquet_product']}")
    check(abs(j["power_balance"]) <= 1e-12 * j["mean_dissipation"] and
          j["mean_power"] > 0, f"power balance {j['power_balance']}")

    # --mass-amp: the mean grows as its square.
    p2, k2 = point(*MASS[:-len(DRAG) - 2], "--mass-amp", "0.05", *DRAG)
    check(p2.returncode == 0 and 3.5 < j["mean_v"] / k2["mean_v"] < 4.5,
          f"mass_amp: mean_v ratio {j['mean_v'] / k2['mean_v']}")
    # --mass-p: a heavier mass swims faster here (its torque is
    # mass_p mass_x a Omega^2).
    p3, k3 = point(*MASS, "--mass-p", "0.6")
    check(p3.returncode == 0 and abs(k3["mean_v"]) > 2 * abs(j["mean_v"]),
          f"mass_p: {k3 and k3['mean_v']} vs {j['mean_v']}")
    # --mass-x: the equivalent torque mass_p mass_x a Omega^2 flips sign
    # with x0, and the term mass_p y' S zeta of eq. 6 with it: another
    # mean, which eq. 6 follows.
    p4, k4 = point(*MASS, "--mass-x", "-0.5")
    check(p4.returncode == 0 and rel(k4["mean_v"], j["mean_v"]) > 1e-2 and
          rel(k4["mean_v"], k4["analytic"]["mean_v"]) <= 1e-2,
          f"mass_x: {k4 and k4['mean_v']}")
    # At x0 = 0 without a torque the mass drives nothing at first order:
    # eq. 6 does not apply (NaN, not 0), and the sleigh comes to rest,
    # the period map's fixed point (0, 0) (docs/theory/forcing.md, "The
    # rest as an attractor"): means exactly 0, converged.
    p4, k4 = point(*MASS, "--mass-x", "0")
    check(p4.returncode == 0 and k4["analytic"]["mean_v"] is None and
          k4["attractor"] == "rest" and k4["converged"] and
          k4["mean_v"] == 0 and k4["mean_omega"] == 0,
          f"mass_x = 0: {p4.stderr} {k4 and k4['attractor']}")
    # --mass-y: moves K(t)'s mean: another mean velocity, and eq. 6 follows.
    p5, k5 = point(*MASS, "--mass-y", "0.3")
    check(p5.returncode == 0 and rel(k5["mean_v"], j["mean_v"]) > 1e-3 and
          rel(k5["mean_v"], k5["analytic"]["mean_v"]) <= 1e-2,
          f"mass_y: {k5 and k5['mean_v']}")
    # --forcing-phase moves the mass's phase: the same means.
    p6, k6 = point(*MASS, "--forcing-phase", "1.0")
    check(p6.returncode == 0 and rel(k6["mean_v"], j["mean_v"]) <= 1e-9 and
          abs(k6["cycle_state"][0] - j["cycle_state"][0]) > 1e-3,
          "forcing_phase with the mass")

# No drag: the mass alone still settles on a cycle here (the constraint
# contracts: <ht/D> < 0), measured and converged although its mean power
# is 0 (the mean |P| is the power's scale); eq. 6 needs drag: null.
p, j = point("--forcing-freq", "2", "--mass-p", "0.3", "--mass-x", "0.5",
             "--mass-amp", "0.2", "--omega0", "0", "--v0", "0")
check(p.returncode == 0 and j["attractor"] == "periodic" and j["converged"]
      and j["floquet_abs"][0] < 1 and j["analytic"]["mean_v"] is None and
      j["mean_dissipation"] == 0 and abs(j["mean_power"]) < 1e-12,
      f"no drag: {p.stderr or (j['attractor'], j['converged'])}")
prod = j["floquet_abs"][0] * j["floquet_abs"][1] if j else 0
check(j and rel(prod, j["analytic"]["floquet_product"]) <= 1e-10,
      "no drag: Floquet product")

# Refusals: exit 2 with the reason.
for args, said in (
        (MASS + ["--scheme", "rattle"], "autonomous"),
        (MASS + ["--mass-p", "-0.1"], "--mass-p: -0.1 is out of range"),
        (["--mass-p", "0.3", "--mass-x", "0.5"], "needs forcing_freq > 0")):
    p, _ = point(*args)
    check(p.returncode == 2 and said in p.stderr,
          f"{args}: exit {p.returncode}: {p.stderr}")

# A sweep with the mass on and no forcing frequency: refused before
# anything runs.
with tempfile.TemporaryDirectory() as tmp:
    cfg = os.path.join(tmp, "mass.ini")
    with open(cfg, "w") as f:
        f.write("[body]\nm = 1\nI0 = 0.5\nrho = 1\n"
                "mass_p = 0.3\nmass_x = 0.5\nmass_amp = 0.1\n"
                "[grid]\ntheta = 60deg\na = 0.2\nA = 0.5\nB = 0.3\n"
                "[ensemble]\ntrajectories = 2\n")
    p = subprocess.run([EXE, "run", cfg], capture_output=True, text=True,
                       env=ENV, cwd=tmp)
    check(p.returncode == 2 and "mass_p = 0.3 needs forcing_freq > 0"
          in p.stderr and not any(n.endswith(".h5") for n in os.listdir(tmp)),
          f"mass sweep: exit {p.returncode}: {p.stderr}")

sys.exit(exit_status())
