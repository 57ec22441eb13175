#!/usr/bin/python3
"""The attractor census of a sweep (docs/theory/forcing.md, "The census";
docs/output.md, "The census"), on the mirror-symmetric sleigh (theta = 0,
b = 0: L2 = Z = 0) driven by a moving mass oscillating across the blade
about it (mass_y = 0): the mirror (omega, v) -> (-omega, v) with a half
period's shift maps solutions to solutions, so a cycle that turns one way
has a mirror twin turning the other (mean_omega of opposite sign) where
the symmetric cycle has lost its stability.
- A (forcing_freq, mass_amp) sweep, 3 x 3 points: at every point the
  shares of the slots and of `other` are integer counts over the
  ensemble summing to it exactly; where two attractors coexist they are
  mirror cycles (one period each, mean_omega of opposite sign within
  twice the point's mean_omega estimate, the same exponents within the
  estimate of lyapunov_max); the bistable pitchfork is there (1 attractor
  at the smallest amplitude, 2 at the largest of Omega = 4);
- 2 ranks x 2 threads bit-identical to 1 rank x 1 thread, and a 2-rank
  run killed with SIGKILL mid-run, then resumed, bit-identical to them;
- a bistable point (Omega = 4, mass_amp = 0.3) with 16 initial states:
  each state (the first row of its sample trajectory) integrated alone by
  `sleighsweep point` ends on the slot whose mean_omega has its sign, the
  slots' shares are exactly those counts / 16, and each run's mean_omega
  equals its slot's within its error estimate;
- [ensemble] attractor_slots = 1 on that point: one slot, the other
  attractor's share in attractor_other_fraction (equal to slot 1's of the
  two-slot run), attractor_count still 2;
- a point the transient cannot close (the seed body with r = 0.1,
  Gamma = 3, no drag, Omega = 1, torque 0.05, energy 0.03: lambda_1 =
  -6.5e-5 +- 1e-6, contracting far beyond 3 error bars, in 2e6 steps):
  its trajectories `unresolved` with the flag cycle_not_closed, no
  attractor counted, the unresolved share 1 in slot 0.
Usage: test_census_sweep.py SLEIGHSWEEP MPIEXEC"""
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
FREQS, AMPS = (2.0, 3.0, 4.0), (0.1, 0.2, 0.3)
BODY = {"theta": "0", "a": "0.2", "A": "0.5", "B": "0.3"}
FIXED = {"drag_w": "0.2", "drag_v": "0.2", "mass_p": "1", "mass_x": "0.3"}
RTOL = "1e-8"
CONFIG = ("[body]\nm = 1\nI0 = 0.5\nrho = 1\n"
          + "".join(f"{k} = {v}\n" for k, v in FIXED.items())
          + "{scalars}"
          + "[grid]\n" + "".join(f"{k} = {v}\n" for k, v in BODY.items())
          + "{axes}"
          + "[ensemble]\ntrajectories = {traj}\nattractor_slots = {slots}\n"
          + f"[integrator]\nrtol = {RTOL}\n"
          + "[output]\nfile = {out}\n{output}"
          + "[run]\nwork_unit = 1\nprogress_interval = 0.01\n")
GRID = ("forcing_freq = " + ", ".join(map(str, FREQS)) + "\n"
        + "mass_amp = " + ", ".join(map(str, AMPS)) + "\n")
BISTABLE = {"forcing_freq": 4.0, "mass_amp": 0.3}


def write(tmp, name, traj, bistable=False, slots=4):
    cfg, out = (os.path.join(tmp, name + ".ini"),
                os.path.join(tmp, name + ".h5"))
    scalars = "".join(f"{k} = {v}\n" for k, v in BISTABLE.items())
    text = CONFIG.format(
        scalars=scalars if bistable else "", axes="" if bistable else GRID,
        traj=traj, slots=slots, out=out,
        output=f"samples = {traj}\nsample_nodes = 1100\n" if bistable else "")
    with open(cfg, "w") as f:
        f.write(text)
    return cfg, out


def run(cfg, ranks, threads, wait=True):
    env = dict(ENV, OMP_NUM_THREADS=str(threads))
    cmd = [MPIEXEC, "--oversubscribe", "-np", str(ranks), EXE, "run", cfg]
    if not wait:
        return subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
    return subprocess.run(cmd, env=env, capture_output=True, text=True,
                          timeout=600)


def census(f):
    """The census datasets, the grid's axes squeezed, slots last."""
    names = ("attractor_count", "attractor_other_fraction", "attractor_class",
             "attractor_cycle_periods", "attractor_fraction",
             "attractor_mean_omega", "attractor_lyapunov_1",
             "attractor_lyapunov_2", "mean_omega_error",
             "lyapunov_max_error", "trajectories", "attractor")
    return {k: np.squeeze(f[k][()]) for k in names}


def check_shares(c, where):
    """Slots and other as integer counts over n summing to n."""
    n = np.asarray(c["trajectories"], float)[..., None]
    frac = np.nan_to_num(c["attractor_fraction"])
    counts = frac * n
    other = np.asarray(c["attractor_other_fraction"]) * n[..., 0]
    check(np.all(np.abs(counts - np.round(counts)) <= 1e-9) and
          np.all(np.abs(other - np.round(other)) <= 1e-9),
          f"{where}: shares are not counts / n: {counts}, {other}")
    total = np.round(counts).sum(-1) + np.round(other)
    check(np.all(total == n[..., 0]),
          f"{where}: slot and other counts sum to {total}, not n")
    check(np.all(c["attractor"] == c["attractor_class"][..., 0]),
          f"{where}: the point's attractor is not slot 0's")


def check_mirror(c):
    """Two attractors: mirror cycles."""
    two = c["attractor_count"] == 2
    check(c["attractor_count"][0, 0] == 1 and c["attractor_count"][2, 2] == 2,
          f"attractor counts {c['attractor_count'].tolist()}: want 1 at "
          "(2, 0.1) and 2 at (4, 0.3)")
    check(np.all(c["attractor_count"] >= 1) and
          np.all(c["attractor_count"] <= 2),
          f"attractor counts {c['attractor_count'].tolist()}")
    cls, per = c["attractor_class"][two], c["attractor_cycle_periods"][two]
    check(np.all(cls[:, :2] == 1) and np.all(per[:, :2] == 1),
          f"two attractors that are not one-period cycles: {cls}, {per}")
    mo = c["attractor_mean_omega"][two]
    emo = c["mean_omega_error"][two]
    check(np.all(mo[:, 0] * mo[:, 1] < 0) and
          np.all(np.abs(mo[:, 0] + mo[:, 1]) <= 2 * emo),
          f"mirror cycles' mean_omega {mo} not opposite within {2 * emo}")
    ly1, ely = c["attractor_lyapunov_1"][two], c["lyapunov_max_error"][two]
    check(np.all(np.abs(ly1[:, 0] - ly1[:, 1]) <= 2 * ely),
          f"mirror cycles' exponents {ly1} differ beyond {2 * ely}")


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


def point_runs(w0, v0):
    """`sleighsweep point` from each initial state at the bistable point:
    (mean_omega, its error, attractor, cycle_periods) per state."""
    args = [EXE, "point", "--rtol", RTOL]
    for k, v in {**BODY, **FIXED, **BISTABLE}.items():
        args += ["--" + k.replace("_", "-"), str(v)]
    out = []
    for w, v in zip(w0, v0):
        p = subprocess.run(args + ["--omega0", repr(float(w)), "--v0",
                                   repr(float(v))],
                           capture_output=True, text=True, env=ENV)
        j = json.loads(p.stdout)
        out.append((j["mean_omega"], j["error_estimate"]["mean_omega"],
                    j["attractor"], j["cycle_periods"]))
    return out


def bistable(tmp):
    n = 16
    cfg, out = write(tmp, "bistable", n, bistable=True)
    p = run(cfg, 1, 2)
    check(p.returncode == 0, f"bistable: exit {p.returncode}: {p.stderr}")
    with h5py.File(out, "r") as f:
        c = census(f)
        g = f["samples"]
        t0 = g["t"][()][0, :, 0]
        w0, v0 = g["omega"][()][0, :, 0], g["v"][()][0, :, 0]
    check(np.all(t0 == 0), f"sample rows 0 are not the initial states: {t0}")
    check_shares(c, "bistable point")
    check(c["attractor_count"] == 2, f"bistable: {c['attractor_count']} "
          "attractors")
    mo = c["attractor_mean_omega"]
    runs = point_runs(w0, v0)
    counts = [0, 0]
    for k, (m, e, att, cyc) in enumerate(runs):
        check(att == "periodic" and cyc == 1,
              f"state {k}: point ends on {att} ({cyc})")
        s = 0 if np.sign(m) == np.sign(mo[0]) else 1
        counts[s] += 1
        check(abs(m - mo[s]) <= e + 1e-12 * abs(mo[s]),
              f"state {k}: point mean_omega {m!r} vs slot {s}'s {mo[s]!r} "
              f"beyond its estimate {e:g}")
    check(list(c["attractor_fraction"][:2] * n) == counts,
          f"slot shares {c['attractor_fraction'][:2]} x {n} vs the states "
          f"integrated one by one: {counts}")
    check(min(counts) >= 1, f"one attractor only among the states: {counts}")
    cfg1, out1 = write(tmp, "oneslot", n, bistable=True, slots=1)
    p = run(cfg1, 1, 2)
    check(p.returncode == 0, f"one slot: exit {p.returncode}: {p.stderr}")
    with h5py.File(out1, "r") as f:
        one = census(f)
        check(f["attractor_fraction"].shape[-1] == 1 and
              f.attrs["attractor_slots"] == 1,
              f"attractor_slots = 1: shape {f['attractor_fraction'].shape}")
    check(np.atleast_1d(one["attractor_fraction"])[0] ==
          c["attractor_fraction"][0] and
          one["attractor_other_fraction"] == c["attractor_fraction"][1] and
          one["attractor_count"] == 2,
          f"one slot: {one['attractor_fraction']}, other "
          f"{one['attractor_other_fraction']}, count {one['attractor_count']}")


UNCLOSED = ("[body]\nm = 1\nI0 = 0.5\nrho = 1\nGamma = 3\n"
            "forcing_freq = 1\ntorque_amp = 0.05\n"
            "[grid]\ntheta = 60deg\na = 0.2\nr = 0.1\nA = 0.5\nB = 0.3\n"
            "[ensemble]\ntrajectories = 2\nenergy = 0.03\n"
            "[output]\nfile = {out}\n")


def unclosed(tmp):
    cfg, out = os.path.join(tmp, "unclosed.ini"), os.path.join(tmp,
                                                               "unclosed.h5")
    with open(cfg, "w") as f:
        f.write(UNCLOSED.format(out=out))
    p = run(cfg, 1, 2)
    check(p.returncode == 0, f"unclosed: exit {p.returncode}: {p.stderr}")
    with h5py.File(out, "r") as f:
        c = census(f)
        flags = int(np.squeeze(f["flags"][()]))
        names = f["flags"].attrs["flag_meanings"].decode().split()
        masks = list(f["flags"].attrs["flag_masks"])
    bit = masks[names.index("cycle_not_closed")]
    check(flags & bit and c["attractor"] == 0 and c["attractor_count"] == 0
          and c["attractor_fraction"][0] == 1.0,
          f"unclosed: flags {flags}, attractor {c['attractor']}, count "
          f"{c['attractor_count']}, shares {c['attractor_fraction']}")


def main():
    traj = light(16)
    with tempfile.TemporaryDirectory() as tmp:
        cfg, ref = write(tmp, "ref", traj)
        p = run(cfg, 1, 1)
        check(p.returncode == 0, f"1 rank: exit {p.returncode}: {p.stderr}")
        with h5py.File(ref, "r") as f:
            c = census(f)
        check_shares(c, "sweep")
        if traj >= 8:  # a sanitized build's 2 states may not find both
            check_mirror(c)
        cfg, two = write(tmp, "two", traj)
        p = run(cfg, 2, 2)
        check(p.returncode == 0, f"2 ranks: exit {p.returncode}: {p.stderr}")
        check(not differing(ref, two),
              f"2 ranks x 2 threads differ: {differing(ref, two)}")
        killed_and_resumed(tmp, ref, traj)
        bistable(tmp)
        unclosed(tmp)
    return exit_status()


if __name__ == "__main__":
    sys.exit(main())
