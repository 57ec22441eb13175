#!/usr/bin/python3
"""End-to-end sweeps: rank/thread invariance bit for bit, closed form at
every grid point, xarray layout, resume, bad configs leave no file.

Usage: test_sweep.py SLEIGHSWEEP CONFIG [mpiexec]
"""
import os
import signal
import subprocess
import sys
import tempfile

import h5py
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sswtest import ENV, check, datasets, exit_status  # noqa: E402

EXE, CONFIG = sys.argv[1], sys.argv[2]
MPIEXEC = sys.argv[3] if len(sys.argv) > 3 else "mpirun"
DIMS = ("theta", "a", "b", "r", "s", "A", "B")
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def check_samples(f, regime):
    """/samples: the points sample_points chose (a = 0.2 | theta = 90deg,
    a = 0) in index order with their grid coordinates, each sample as 64
    rows at evenly spaced times (docs/output.md)."""
    grid = np.meshgrid(*[f[a][()] for a in DIMS], indexing="ij")
    th, a = grid[0].ravel(), grid[1].ravel()
    want = np.flatnonzero((a == 0.2) | ((th == np.pi / 2) & (a == 0)))
    check(np.array_equal(f["samples/point"][()], want),
          f"samples/point {f['samples/point'][()]}, expected {want}")
    for k, name in enumerate(DIMS):
        check(np.array_equal(f["samples/" + name][()], grid[k].ravel()[want]),
              f"samples/{name}")
    x, t = f["samples/x"][()], f["samples/t"][()]
    check(x.shape == (len(want), 2, 64), f"sample shape {x.shape}")
    moving = regime.ravel()[want] > 0
    check(moving.any() and (~moving).any(), "both kinds of point sampled")
    check(np.isfinite(x[moving]).all(), "NaN in a moving sample")
    dt = np.diff(t[moving], axis=-1)
    check(np.all(np.abs(dt - dt[..., :1]) <= 1e-12 * np.abs(dt[..., :1])),
          "sample rows not at evenly spaced times")
    # Uniform motion: one node (the start), the rest NaN.
    check(np.isfinite(x[~moving][..., 0]).all() and
          np.isnan(x[~moving][..., 1:]).all(), "uniform samples")


def check_trajectory_script(path, tmp):
    """trajectory.py draws a chosen point and names the chosen points when
    asked for another."""
    script = os.path.join(ROOT, "analysis", "trajectory.py")
    png = os.path.join(tmp, "chosen.png")
    r = subprocess.run(["/usr/bin/python3", script, path, "--at",
                        "theta=30deg", "a=0.2", "b=0", "s=0", "--out", png],
                       capture_output=True, text=True)
    check(r.returncode == 0 and os.path.getsize(png) > 1000,
          f"trajectory.py at a chosen point: {r.returncode} {r.stderr}")
    r = subprocess.run(["/usr/bin/python3", script, path, "--at",
                        "theta=30deg", "a=0.5", "b=0", "s=0", "--out", png],
                       capture_output=True, text=True)
    check(r.returncode == 2 and "keeps no sample trajectories" in r.stderr
          and "a = 0.2" in r.stderr,
          f"trajectory.py at a point without samples: {r.returncode} "
          f"{r.stderr}")


def config_with(tmp, name, extra_output=""):
    text = open(CONFIG).read()
    path = os.path.join(tmp, name + ".ini")
    out = os.path.join(tmp, name + ".h5")
    text = text.replace("[output]", f"[output]\nfile = {out}\n{extra_output}")
    with open(path, "w") as f:
        f.write(text)
    return path, out


def run(ranks, cfg, threads=1, extra=(), wait=True):
    env = dict(ENV, OMP_NUM_THREADS=str(threads))
    cmd = [MPIEXEC, "--oversubscribe", "-np", str(ranks), EXE, "run", *extra,
           cfg]
    if not wait:
        return subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
    return subprocess.run(cmd, env=env, capture_output=True, text=True)


def wait_for_progress(p, points):
    """Reads the run's stderr until its progress shows `points` done, so the
    signal lands mid-run however loaded the machine is."""
    import re
    for line in p.stderr:
        m = re.match(r"sleighsweep: (\d+)/(\d+) points", line)
        if m and int(m.group(1)) >= points:
            return
    raise RuntimeError("the run ended before reaching the signal point")


def rank_pid(cfg):
    """PID of the (first) sleighsweep process running this config."""
    import glob
    for d in sorted(glob.glob("/proc/[0-9]*"), key=lambda d: int(d[6:])):
        try:
            cmd = open(d + "/cmdline", "rb").read().split(b"\0")
        except OSError:
            continue
        if cmd and cmd[0].endswith(b"sleighsweep") and cfg.encode() in cmd:
            return int(d[6:])
    raise RuntimeError(f"no rank running {cfg}")


def same_results(a, b, what):
    da, db = datasets(a), datasets(b)
    check(sorted(da) == sorted(db), f"{what}: dataset lists differ")
    diff = [k for k in da if k in db and da[k] != db[k]]
    check(not diff, f"{what}: datasets differ: {diff}")


with tempfile.TemporaryDirectory() as tmp:
    files = {}
    for ranks, threads in ((1, 1), (2, 1), (3, 1), (1, 2), (2, 2)):
        cfg, out = config_with(tmp, f"np{ranks}_t{threads}")
        p = run(ranks, cfg, threads)
        check(p.returncode == 0, f"np {ranks} x {threads}: exit "
              f"{p.returncode}: {p.stderr}")
        check(p.stdout.strip() == out, "run must print the output path")
        check("points/s" in p.stderr and "ETA" in p.stderr,
              "no progress lines on stderr")
        check("\x1b" not in p.stderr and "\r" not in p.stderr,
              "control characters in the log")
        files[(ranks, threads)] = out
    base = files[(1, 1)]
    for key, path in files.items():
        if key != (1, 1):
            same_results(base, path, f"np{key[0]} x {key[1]} threads vs np1")

    # Closed form at every grid point.
    with h5py.File(base, "r") as f:
        done = f["done"][()]
        check(done.all(), "not every point done")
        regime = f["regime"][()]
        check(set(np.unique(regime)) == {0, 1, 2, 3},
              f"regimes present {np.unique(regime)}")
        circ = regime == 3
        for meas, ref in (("radius_future", "analytic_radius"),
                          ("radius_past", "analytic_radius"),
                          ("center_spacing", "analytic_center_spacing"),
                          ("transition_angle", "analytic_transition_angle")):
            m, r = f[meas][()][circ], f[ref][()][circ]
            err = np.max(np.abs(m / r - 1))
            check(err <= 1e-8, f"{meas}: max rel. error {err:.3g}")
        spin = regime == 2
        d = f["center_spacing"][()][spin]
        dr = f["analytic_center_spacing"][()][spin]
        check(np.max(np.abs(d / dr - 1)) <= 1e-8, "spin reversal spacing")
        line = regime == 1
        check(np.all(np.isinf(f["radius_future"][()][line])), "line radius")
        ta = f["transition_angle"][()][line]
        tr = f["analytic_transition_angle"][()][line]
        check(np.max(np.abs(ta / tr - 1)) <= 1e-8, "line transition angle")
        check(np.array_equal(f["loops"][()][regime > 0],
                             f["analytic_loops"][()][regime > 0]), "loops")
        sense = f["sense_future"][()][circ]
        check(np.array_equal(sense, f["analytic_sense"][()][circ]), "senses")
        # The file's error estimates against the truth (docs/output.md):
        # the spacing's and the angle's estimates bound the error of the
        # ensemble mean at nearly every point (>= 95%, the promise), and
        # the default rtol (1e-10) is met where the closed form applies.
        for meas, ref, est, where in (
                ("center_spacing", "analytic_center_spacing",
                 "center_spacing_error", regime >= 2),
                ("transition_angle", "analytic_transition_angle",
                 "transition_angle_error", regime >= 1)):
            m, r = f[meas][()][where], f[ref][()][where]
            e = f[est][()][where]
            check(np.all(np.isfinite(e)), f"{est}: not finite")
            bounded = np.mean(np.abs(m - r) <= e)
            check(bounded >= 0.95, f"{est} bounds {bounded:.0%} of errors")
            scale = np.maximum(np.abs(r), 1.0) if meas == "transition_angle" \
                else np.abs(r)
            check(np.all(e <= 1e-10 * scale), f"{est} above rtol")
        # Blade force against its closed form (the peaks are located on the
        # series of the motion: docs/theory/blade-force.md) and the path of
        # trajectory 0 against the exact path, at every non-uniform point.
        moving = regime >= 1
        bf = f["blade_force_max"][()][moving]
        bfa = f["analytic_blade_force_max"][()][moving]
        err = np.max(np.abs(bf - bfa) / bfa)
        check(err <= 1e-9, f"blade_force_max: max rel. error {err:.3g}")
        pe = f["path_error_max"][()][moving]
        check(np.all(pe <= 1e-8), f"path_error_max up to {np.max(pe):.3g}")
        check(f.attrs["step_control"] == b"adaptive" and
              f.attrs["rtol"] == 1e-10, "step control attributes")
        check(np.all(f["converged_fraction"][()] == 1.0), "convergence")
        check(np.all(f["energy_error_max"][()] < 1e-12), "energy error")
        for name in ("version", "git_revision", "config", "hdf5_version",
                     "mpi_library_version", "start_time", "end_time",
                     "wall_time_s", "mpi_ranks", "omp_threads", "k_rot"):
            check(name in f.attrs, f"root attribute {name} missing")
        check(f.attrs["status"] in (b"complete", "complete"), "status")
        check_samples(f, regime)
    check_trajectory_script(base, tmp)

    # xarray sees the seven named dimensions, with coordinates.
    import xarray as xr
    ds = xr.open_dataset(base, engine="h5netcdf")
    check(tuple(ds["center_spacing"].dims) == DIMS,
          f"dims {ds['center_spacing'].dims}")
    check(not any(d.startswith("phony") for d in ds.dims), "phony dims")
    check(ds["theta"].attrs.get("units") == "rad", "theta units")
    check(np.allclose(ds["theta"].values[[0, 2]], [0, np.pi / 2]), "theta")
    ds.close()

    # A finished file: running again computes nothing and says so.
    cfg, out = config_with(tmp, "np1_t1")
    p = run(1, cfg)
    check(p.returncode == 0 and "is already complete (48 points); nothing "
          "to do" in p.stderr,
          f"rerun of a complete file: {p.returncode} {p.stderr}")
    same_results(base, out, "rerun of a complete file")

    # A stop signal mid-run: exit 3, the file opens, status "interrupted",
    # and a rerun completes it with the results of the uninterrupted run.
    # Through mpirun: SIGUSR1 (Open MPI forwards it; SIGTERM to mpirun makes
    # mpirun itself exit 1). SIGTERM straight to the rank of a 1-rank run
    # (under mpirun: a singleton Open MPI process can crash LeakSanitizer's
    # tracer at exit in scripts/sanitize.sh).
    slow = ("[integrator]\n", "[integrator]\neta = 0.05\n")
    text = open(CONFIG).read().replace("trajectories = 6", "trajectories = 40")
    if "[integrator]" not in text:
        text += "\n[integrator]\n"
    text = text.replace(*slow)
    for name in ("ref", "usr1", "term"):
        with open(os.path.join(tmp, name + ".ini"), "w") as f:
            f.write(text.replace("[output]",
                                 f"[output]\nfile = {tmp}/{name}.h5"))
    run(2, os.path.join(tmp, "ref.ini"))
    for name, sig in (("usr1", signal.SIGUSR1), ("term", signal.SIGTERM)):
        cfg = os.path.join(tmp, name + ".ini")
        p = run(2 if sig == signal.SIGUSR1 else 1, cfg, wait=False)
        wait_for_progress(p, 4)
        if sig == signal.SIGUSR1:
            p.send_signal(sig)
        else:
            os.kill(rank_pid(cfg), sig)
        _, err = p.communicate(timeout=120)
        check(p.returncode == 3, f"{name}: exit {p.returncode}, expected 3")
        with h5py.File(os.path.join(tmp, name + ".h5"), "r") as f:
            ndone = int(f["done"][()].sum())
            check(f.attrs["status"] in (b"interrupted", "interrupted"),
                  f"{name}: status after the signal")
        check(0 < ndone < 48, f"{name}: {ndone} points done after the signal")
        p = run(2, cfg, extra=("--resume",))
        check(p.returncode == 0, f"{name} resume: exit {p.returncode}: "
              f"{p.stderr}")
        same_results(os.path.join(tmp, "ref.h5"),
                     os.path.join(tmp, name + ".h5"),
                     f"{name}: resumed vs uninterrupted")

    # A different config against the same file is refused.
    text = open(os.path.join(tmp, "usr1.ini")).read().replace("seed = 7",
                                                              "seed = 8")
    with open(os.path.join(tmp, "usr1.ini"), "w") as f:
        f.write(text)
    p = run(1, os.path.join(tmp, "usr1.ini"))
    check(p.returncode == 2 and "seed" in p.stderr,
          f"changed config: exit {p.returncode}: {p.stderr}")

    # Bad input to `run`: exit 2, a message naming the problem, and no file
    # created or changed.
    foreign = os.path.join(tmp, "foreign.h5")
    with open(foreign, "w") as f:
        f.write("not an HDF5 file\n")
    cfg, _ = config_with(tmp, "badcases")
    table = [
        (["--output", "/nonexistent/dir/x.h5", cfg], "not writable", None),
        (["--output", foreign, cfg], "not a usable sleighsweep output",
         foreign),
        ([os.path.join(tmp, "missing.ini")], "missing.ini", None),
        (["--bogus", cfg], "--bogus", None),
        (["--resume", "--overwrite", cfg], "contradict", None),
        ([], "missing CONFIG", None),
    ]
    for args, word, keep in table:
        before = open(keep, "rb").read() if keep else None
        p = subprocess.run([MPIEXEC, "--oversubscribe", "-np", "2", EXE, "run",
                            *args], env=ENV, capture_output=True, text=True)
        check(p.returncode == 2,
              f"run {args}: exit {p.returncode}, expected 2")
        check(word in p.stderr, f"run {args}: message {p.stderr[-300:]!r} "
              f"lacks {word!r}")
        if keep:
            check(open(keep, "rb").read() == before, f"run {args} changed "
                  f"{keep}")
    check(not os.path.exists(os.path.join(tmp, "badcases.h5")),
          "a refused run created its output")

sys.exit(exit_status())
