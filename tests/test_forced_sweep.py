#!/usr/bin/python3
"""A (forcing_freq, torque_amp) sweep of the driven sleigh (3 x 3 points,
the seed body with drag, sine torque), checked in the file:
- every point periodic (attractor, attractor_fraction 1 in slot 0,
  cycle_periods 1,
  converged_fraction 1), the limit-circle datasets NaN;
- the closed forms beside the measurements: floquet_abs_1 * floquet_abs_2
  equals analytic_floquet_product to 1e-10 (exact, forcing.md eq. F2),
  and the small-forcing mean_v's relative error falls by 4 (within
  3.5 to 4.5) when torque_amp halves (eq. 3: O(eps^2) relative);
- one point against `point` on the same body (a unique cycle: any initial
  state), mean_v, mean_omega and lyapunov_max (the sweep's from the
  cycle's Floquet modulus, point's from the monodromy by segments) within
  the sum of their error estimates;
- 2 ranks x 2 threads bit-identical to 1 rank x 1 thread, and a 2-rank
  run killed with SIGKILL mid-run (after 2 of 9 points reported), then
  resumed, bit-identical to them too;
- the moving mass swept (mass_amp): its closed form's error falling by 4,
  the Floquet product with K(t), the sweep against `point`;
- sample trajectories as Poincare sections (rows T apart, the cycle's
  point repeated, the heading advancing by mean_omega T);
- [refine] classes = attractor: the boundary between rest (torque_amp =
  0, with drag) and the forced cycle located at torque_amp = 0 within
  [refine] tol.
Usage: test_forced_sweep.py SLEIGHSWEEP MPIEXEC"""
import json
import os
import re
import signal
import subprocess
import sys
import tempfile

import h5py
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sswtest import (ENV, check, differing, exit_status,  # noqa: E402
                     light, ranks_of, recorded)

EXE, MPIEXEC = sys.argv[1], sys.argv[2]
FREQS, AMPS = (1.0, 2.0, 4.0), (0.05, 0.1, 0.2)
BODY = {"theta": "60deg", "a": "0.2", "A": "0.5", "B": "0.3"}
DRAG = {"drag_w": "0.3", "drag_v": "0.5"}
RTOL = "1e-8"
CONFIG = ("[body]\nm = 1\nI0 = 0.5\nrho = 1\n"
          + "".join(f"{k} = {v}\n" for k, v in DRAG.items())
          + "[grid]\n" + "".join(f"{k} = {v}\n" for k, v in BODY.items())
          + "forcing_freq = " + ", ".join(map(str, FREQS)) + "\n"
          + "torque_amp = " + ", ".join(map(str, AMPS)) + "\n"
          + "[ensemble]\ntrajectories = {traj}\n"
          + f"[integrator]\nrtol = {RTOL}\n"
          + "[output]\nfile = {out}\n"
          + "[run]\nwork_unit = 1\nprogress_interval = 0.01\n")


def write(tmp, name, traj):
    cfg, out = os.path.join(tmp, name + ".ini"), os.path.join(tmp,
                                                              name + ".h5")
    with open(cfg, "w") as f:
        f.write(CONFIG.format(traj=traj, out=out))
    return cfg, out


def run(cfg, ranks, threads, wait=True):
    env = dict(ENV, OMP_NUM_THREADS=str(threads))
    cmd = [MPIEXEC, "--oversubscribe", "-np", str(ranks), EXE, "run", cfg]
    if not wait:
        return subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
    return subprocess.run(cmd, env=env, capture_output=True, text=True,
                          timeout=300)


def field(f, name):
    return np.squeeze(f[name][()])  # (forcing_freq, torque_amp)


def check_values(out):
    with h5py.File(out, "r") as f:
        check(list(f["mean_v"].dims[7].keys()) == ["forcing_freq"] and
              list(f["mean_v"].dims[8].keys()) == ["torque_amp"],
              "the swept axes are the file's last dimensions")
        check(np.all(field(f, "attractor") == 1) and
              np.all(field(f, "cycle_periods") == 1) and
              np.all(field(f, "attractor_fraction")[..., 0] == 1) and
              np.all(field(f, "converged_fraction") == 1),
              "not every point on a converged one-period cycle")
        check(np.all(np.isnan(field(f, "radius_future"))) and
              np.all(np.isnan(field(f, "energy_growth_slope"))),
              "limit radii or growth slope not NaN on a cycle")
        prod = field(f, "floquet_abs_1") * field(f, "floquet_abs_2")
        exact = field(f, "analytic_floquet_product")
        rel = np.abs(prod / exact - 1)
        check(np.all(rel < 1e-10), f"Floquet product off eq. 2: {rel}")
        mv, av = field(f, "mean_v"), field(f, "analytic_mean_v")
        err = np.abs(mv / av - 1)
        ratio = err[:, 1:] / err[:, :-1]  # torque_amp doubled
        check(np.all((ratio > 3.5) & (ratio < 4.5)),
              f"small-forcing mean_v error ratios (want 4): {ratio}")
        i, j = FREQS.index(2.0), AMPS.index(0.1)
        sweep = {q: (field(f, q)[i, j], field(f, q + "_error")[i, j])
                 for q in ("mean_v", "mean_omega", "lyapunov_max")}
    args = [EXE, "point", "--rtol", RTOL, "--forcing-freq", "2",
            "--torque-amp", "0.1"]
    for k, v in {**BODY, **DRAG}.items():
        args += ["--" + k.replace("_", "-"), v]
    p = subprocess.run(args, capture_output=True, text=True, env=ENV)
    pt = json.loads(p.stdout)
    # lyapunov_max: the sweep's from the cycle's Floquet modulus, point's
    # from the monodromy by segments (docs/theory/forcing.md)
    pt["lyapunov_max"] = pt["lyapunov"][0]
    pt["error_estimate"]["lyapunov_max"] = pt["error_estimate"]["lyapunov"][0]
    for q, (val, e) in sweep.items():
        pe = pt["error_estimate"][q]
        check(abs(val - pt[q]) <= e + pe,
              f"{q}: sweep {val!r} vs point {pt[q]!r} beyond {e + pe:g}")


def killed_and_resumed(tmp, ref, traj):
    cfg, out = write(tmp, "killed", traj)
    p = run(cfg, 2, 1, wait=False)
    seen = []
    for line in p.stderr:
        seen.append(line)
        m = re.match(r"sleighsweep: (\d+)/(\d+) points", line)
        if m and int(m.group(1)) >= 2:
            break
    pids = ranks_of(cfg)
    check(len(pids) == 2, f"ranks to kill: {pids}; {''.join(seen)}")
    for pid in pids:
        os.kill(pid, signal.SIGKILL)
    p.communicate(timeout=120)
    have = recorded(out)
    check(1 <= len(have) < len(FREQS) * len(AMPS),
          f"the kill left {len(have)} of 9 points: not mid-run")
    p = run(cfg, 2, 1)
    check(p.returncode == 0, f"resume: exit {p.returncode}: {p.stderr[-400:]}")
    check(not differing(ref, out), f"killed and resumed: datasets differ "
          f"from 1 rank: {differing(ref, out)}")


MASS = {"forcing_freq": "2", "mass_p": "0.2", "mass_x": "0.1"}
MASS_AMPS = (0.025, 0.05, 0.1)


def mass_swept(tmp):
    """The moving mass swept (mass_amp x 3 at mass_p = 0.2, mass_x = 0.1,
    Omega = 2, no torque): every point on a one-period cycle; the Floquet
    product identity with K(t) to 1e-10; the small-forcing mean_v's
    relative error falling by 4 (3.5 to 4.5) when mass_amp halves
    (forcing.md, the moving mass's eq.: O(eps^2) relative); the largest
    amplitude's mean_v against `point` within the sum of their error
    estimates."""
    cfg, out = os.path.join(tmp, "mass.ini"), os.path.join(tmp, "mass.h5")
    text = CONFIG.format(traj=4, out=out).replace(
        "forcing_freq = 1.0, 2.0, 4.0\n", "").replace(
        "torque_amp = 0.05, 0.1, 0.2\n",
        "mass_amp = " + ", ".join(map(str, MASS_AMPS)) + "\n").replace(
        "[grid]\n", "".join(f"{k} = {v}\n" for k, v in MASS.items())
        + "[grid]\n")
    with open(cfg, "w") as f:
        f.write(text)
    p = run(cfg, 1, 2)
    check(p.returncode == 0, f"mass sweep: exit {p.returncode}: {p.stderr}")
    with h5py.File(out, "r") as f:
        last = f["mean_v"].dims[f["mean_v"].ndim - 1]
        check(list(last.keys()) == ["mass_amp"],
              "mass_amp is the file's last dimension")
        check(np.all(field(f, "attractor") == 1) and
              np.all(field(f, "cycle_periods") == 1) and
              np.all(field(f, "converged_fraction") == 1),
              "mass sweep: not every point on a converged one-period cycle")
        prod = field(f, "floquet_abs_1") * field(f, "floquet_abs_2")
        rel = np.abs(prod / field(f, "analytic_floquet_product") - 1)
        check(np.all(rel < 1e-10), f"mass: Floquet product off: {rel}")
        mv, av = field(f, "mean_v"), field(f, "analytic_mean_v")
        err = np.abs(mv / av - 1)
        ratio = err[1:] / err[:-1]
        check(np.all((ratio > 3.5) & (ratio < 4.5)),
              f"mass: small-forcing mean_v error ratios (want 4): {ratio}")
        val, e = mv[-1], field(f, "mean_v_error")[-1]
    args = [EXE, "point", "--rtol", RTOL, "--mass-amp", str(MASS_AMPS[-1])]
    for k, v in {**BODY, **DRAG, **MASS}.items():
        args += ["--" + k.replace("_", "-"), v]
    pt = json.loads(subprocess.run(args, capture_output=True, text=True,
                                   env=ENV).stdout)
    pe = pt["error_estimate"]["mean_v"]
    check(abs(val - pt["mean_v"]) <= e + pe,
          f"mass: sweep {val!r} vs point {pt['mean_v']!r} beyond {e + pe:g}")


def sections(tmp):
    """Sample trajectories of a forced sweep are Poincare sections
    (docs/output.md, "/samples"): rows at t = k T (consecutive times T
    apart to 1e-12), on a one-period cycle the same (omega, v) in every
    row to 1e-9 of its scale (the path ends on the cycle to 1e-13), and
    the heading advancing by mean_omega T per row within the point's
    estimate and spread."""
    cfg, out = os.path.join(tmp, "sec.ini"), os.path.join(tmp, "sec.h5")
    text = CONFIG.format(traj=2, out=out).replace(
        "torque_amp = 0.05, 0.1, 0.2\n", "torque_amp = 0.1\n").replace(
        "[run]\n", "samples = 1\nsample_nodes = 8\n[run]\n")
    with open(cfg, "w") as f:
        f.write(text)
    p = run(cfg, 1, 1)
    check(p.returncode == 0, f"sections: exit {p.returncode}: {p.stderr}")
    with h5py.File(out, "r") as f:
        g = f["samples"]
        t, phi = g["t"][()][:, 0, :], g["phi"][()][:, 0, :]
        w, v = g["omega"][()][:, 0, :], g["v"][()][:, 0, :]
        freq = g["forcing_freq"][()]
        mo = np.atleast_1d(np.squeeze(f["mean_omega"][()]))
        emo = np.atleast_1d(np.squeeze(f["mean_omega_error"][()]))
        smo = np.atleast_1d(np.squeeze(f["mean_omega_spread"][()]))
    check(len(freq) == len(FREQS), f"sample points {freq}")
    for i, om in enumerate(freq):
        T = 2 * np.pi / om
        check(np.all(np.abs(np.diff(t[i]) / T - 1) <= 1e-12),
              f"Omega {om}: section times {t[i]} not T apart")
        for x in (w[i], v[i]):
            check(np.all(np.abs(x - x[-1]) <= 1e-9 * np.abs(x).max()),
                  f"Omega {om}: the section's rows differ: {x}")
        k = FREQS.index(om)
        d = np.diff(phi[i]) / T
        check(np.all(np.abs(d - mo[k]) <= emo[k] + smo[k] +
                     1e-12 * abs(mo[k])),
              f"Omega {om}: heading per period {d} vs mean_omega {mo[k]}")


REFINE = ("[body]\nm = 1\nI0 = 0.5\nrho = 1\n"
          + "".join(f"{k} = {v}\n" for k, v in DRAG.items())
          + "[grid]\n" + "".join(f"{k} = {v}\n" for k, v in BODY.items())
          + "forcing_freq = 1, 2\ntorque_amp = {amps}\n"
          + "[ensemble]\ntrajectories = 2\n"
          + f"[integrator]\nrtol = {RTOL}\n"
          + "[refine]\nclasses = attractor\ntol = {tol}\n"
          + "[output]\nfile = {out}\n")


def refined(tmp):
    """[refine] classes = attractor on torque_amp = 0, 0.1 (x forcing_freq
    1, 2): with drag the unforced points are at rest and any torque keeps
    the sleigh on a cycle, so each torque_amp edge holds one crossing,
    rest (class 16 x 3) to a one-period cycle (16 x 1 + 1), at exactly
    torque_amp = 0: the bracket must hold 0 and be at most tol wide.
    Without a forced point the class is refused (exit 2)."""
    tol = 1e-6
    cfg, out = os.path.join(tmp, "refine.ini"), os.path.join(tmp, "refine.h5")
    with open(cfg, "w") as f:
        f.write(REFINE.format(amps="0, 0.1", tol=tol, out=out))
    p = run(cfg, 2, 1)
    check(p.returncode == 0, f"refine: exit {p.returncode}: {p.stderr}")
    with h5py.File(out, "r") as f:
        att = field(f, "attractor")
        names = f["attractor"].attrs["flag_meanings"].decode().split()
        rest, periodic = names.index("rest"), names.index("periodic")
        check(np.all(att[:, 0] == rest) and np.all(att[:, 1] == periodic),
              f"attractors {att.tolist()}: want rest at torque_amp = 0, "
              "periodic at 0.1")
        b = f["boundaries"]
        axes = b["axis"].attrs["flag_meanings"].decode().split()
        inds = b["indicator"].attrs["flag_meanings"].decode().split()
        pos, err = b["position"][()], b["position_error"][()]
        check(len(pos) == 2 and
              np.all(b["axis"][()] == axes.index("torque_amp")) and
              np.all(b["indicator"][()] == inds.index("attractor")),
              f"crossings: {len(pos)} on axes {b['axis'][()]}, indicators "
              f"{b['indicator'][()]}; want 2 on torque_amp, attractor")
        check(np.all(b["class_lo"][()] == 16 * rest) and
              np.all(b["class_hi"][()] == 16 * periodic + 1),
              f"classes {b['class_lo'][()]} -> {b['class_hi'][()]}")
        check(np.all(np.abs(pos) <= err / 2 * (1 + 1e-12)) and
              np.all(err <= tol),
              f"rest/cycle boundary at {pos} +- {err}: want 0 within tol")
    with open(cfg, "w") as f:
        f.write(REFINE.format(amps="0", tol=tol, out=out))
    p = run(cfg, 1, 1)
    check(p.returncode == 2 and "no grid point is forced" in p.stderr,
          f"attractor without forcing: exit {p.returncode}: {p.stderr}")


def main():
    traj = light(64)
    with tempfile.TemporaryDirectory() as tmp:
        cfg, ref = write(tmp, "ref", traj)
        p = run(cfg, 1, 1)
        check(p.returncode == 0, f"1 rank: exit {p.returncode}: {p.stderr}")
        check_values(ref)
        cfg, two = write(tmp, "two", traj)
        p = run(cfg, 2, 2)
        check(p.returncode == 0, f"2 ranks: exit {p.returncode}: {p.stderr}")
        check(not differing(ref, two),
              f"2 ranks x 2 threads differ: {differing(ref, two)}")
        killed_and_resumed(tmp, ref, traj)
        refined(tmp)
        mass_swept(tmp)
        sections(tmp)
    return exit_status()


if __name__ == "__main__":
    sys.exit(main())
