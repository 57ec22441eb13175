"""Boundary refinement in a sweep (docs/refine.md): the file is bit for
bit the same for 1, 2 and 3 ranks and 1 and 2 threads; without [refine]
it is the sweep it was (every dataset but /boundaries the same bytes); a
run killed while refining (status still "running", /boundaries partial
or absent) resumes the complete grid and writes the same /boundaries;
/boundaries reads with xarray, sorted by (point_lo, axis, indicator,
level), and each Z = 0 crossing of theta lies where the closed form puts
it (sin 2 theta = 0: 90 degrees) within its bracket; with circulation
on a (Gamma, energy) grid each crossing of the critical energy lies where
the closed form H_c = D kappa^2 / (2 E) puts it (docs/theory/model.md
sec. 1, Model II tensor written here; circulation.md sec. 3). The
journals cover the refinement: a 2-rank run killed (SIGKILL to its ranks)
once its journals hold crossings, resumed on 3 ranks, and one stopped by
SIGTERM to rank 1 (exit 3, status "interrupted"), resumed on 1 rank, take
the journaled edges (counted in the summary line: the stopped run's count
exactly) and write the same /boundaries, its attributes too.
Usage: test_refine_sweep.py SLEIGHSWEEP MPIEXEC"""
import glob
import math
import os
import re
import signal
import subprocess
import sys
import tempfile
import time

import h5py
import numpy as np
import xarray as xr

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sswtest import ENV, check, differing, exit_status, ranks_of  # noqa: E402,E501

EXE, MPIEXEC = sys.argv[1], sys.argv[2]
BODY = """[body]
m = 1
I0 = 0.5
rho = 1
[grid]
theta = linspace(5deg, 175deg, 8)
a = linspace(-0.3, 0.5, 3)
A = 0.5
B = 0.3, 0.35
[ensemble]
trajectories = 3
initial = lattice
[output]
file = {out}
"""
REFINE = """[refine]
classes = regime, loops, sense
tol = 1e-7
"""


def write(tmp, name, refine=True):
    cfg = os.path.join(tmp, name + ".ini")
    out = os.path.join(tmp, name + ".h5")
    with open(cfg, "w") as f:
        f.write(BODY.format(out=out) + (REFINE if refine else ""))
    return cfg, out


def run(tmp, name, ranks, threads, refine=True, *opts):
    cfg, out = write(tmp, name, refine)
    p = subprocess.run([MPIEXEC, "--oversubscribe", "-np", str(ranks), EXE,
                        "run", *opts, cfg], text=True, capture_output=True,
                       env=dict(ENV, OMP_NUM_THREADS=str(threads)),
                       timeout=300)
    check(p.returncode == 0, f"{name}: exit {p.returncode}: {p.stderr}")
    return out, cfg, p


def check_contents(path):
    ds = xr.open_dataset(path, group="boundaries", engine="h5netcdf")
    n = ds.sizes["crossing"]
    check(n > 10, f"only {n} crossings")
    key = np.stack([ds.point_lo.values, ds.axis.values,
                    ds.indicator.values], axis=1)
    order = np.lexsort(key.T[::-1])
    check(np.array_equal(order, np.arange(n)), "crossings not sorted by key")
    check(np.all(ds.position_error.values <= 1e-7), "a bracket above tol")
    with h5py.File(path, "r") as f:
        names = [s.decode() if isinstance(s, bytes) else s for s in
                 f["boundaries/indicator"].attrs["flag_meanings"].split()]
    z = names.index("Z")
    theta = (ds.axis.values == 0) & (ds.indicator.values == z)
    check(np.any(theta), "no Z = 0 crossing along theta")
    for x, e in zip(ds.position.values[theta],
                    ds.position_error.values[theta]):
        check(abs(x - math.pi / 2) <= max(e, 1e-12),
              f"Z = 0 at theta {x!r}, not pi/2 within {e}")
    near = ds.near_distance.values
    check("near_miss" in ds.sizes and np.all(near < ds.attrs["near_margin"]),
          f"near misses beyond the margin: {near}")
    per_edge = ds.attrs["evaluations"] / ds.attrs["edges"]
    print(f"{n} crossings on {ds.attrs['edges']} edges, "
          f"{per_edge:.2f} evaluations per edge, "
          f"{ds.attrs['evaluations'] / ds.attrs['coarse_points']:.2f} "
          "per grid point")


CIRC = """[body]
m = 1
I0 = 0.5
rho = 1
[grid]
theta = 60deg
a = 0.2
r = 0.2
A = 0.5
B = 0.3
Gamma = linspace(-6, 6, 9)
energy = linspace(0.2, 2, 7)
[ensemble]
trajectories = 2
[output]
file = {out}
[refine]
classes = critical
tol = 1e-7
"""


def hc_per_gamma2(theta, a, r, A, B, m=1.0, i0=0.5, rho=1.0, krot=0.25):
    """C in H_c = C Gamma^2: Model II with b = s = 0, q = (0, r)."""
    c, s, d2 = math.cos(theta), math.sin(theta), A * A - B * B
    mf = rho * math.pi * (B * B * c * c + A * A * s * s)
    nf = rho * math.pi * (A * A * c * c + B * B * s * s)
    zf = rho * math.pi * d2 * math.sin(2 * theta) / 2
    j = i0 + m * a * a + krot * rho * math.pi * d2 * d2 + r * r * nf
    mm, l1, l2 = m + mf, m * a + r * nf, -r * zf
    d = mm * j - l2 * l2
    e = j * zf * zf + 2 * zf * l1 * l2 + mm * l1 * l1
    return d * rho * rho * r * r / (2 * e)


def check_critical(tmp):
    out = os.path.join(tmp, "circ.h5")
    cfg = os.path.join(tmp, "circ.ini")
    with open(cfg, "w") as f:
        f.write(CIRC.format(out=out))
    p = subprocess.run([MPIEXEC, "--oversubscribe", "-np", "2", EXE, "run",
                        "--quiet", cfg], text=True, capture_output=True,
                       env=ENV, timeout=300)
    check(p.returncode == 0, f"circulation: exit {p.returncode}: {p.stderr}")
    ds = xr.open_dataset(out, group="boundaries", engine="h5netcdf")
    C = hc_per_gamma2(math.radians(60), 0.2, 0.2, 0.5, 0.3)
    gammas, energies = np.linspace(-6, 6, 9), np.linspace(0.2, 2, 7)
    check(ds.sizes["crossing"] >= 8, f"{ds.sizes['crossing']} crossings")
    for k in range(ds.sizes["crossing"]):
        lo, axis = int(ds.point_lo[k]), int(ds.axis[k])
        g, h = gammas[lo // 7], energies[lo % 7]
        x, e = float(ds.position[k]), float(ds.position_error[k])
        exact = math.copysign(math.sqrt(h / C), x) if axis == 7 else C * g * g
        check(axis in (7, 8) and abs(x - exact) <= max(e, 1e-12),
              f"H = H_c from point {lo} along axis {axis}: {x!r}, "
              f"exact {exact!r}, bracket {e}")


def check_resume(tmp, ref):
    """A run killed while refining: status "running", /boundaries half
    written."""
    out, cfg, _ = run(tmp, "killed", 2, 1)
    with h5py.File(out, "r+") as f:  # in place: same types and sizes
        f["boundaries/position"][...] = 0.0
        a = h5py.h5a.open(f.id, b"status")
        a.write(np.array(b"running", dtype=a.dtype))
    _, _, p = run(tmp, "killed", 2, 1)
    check("refinement:" in p.stderr, f"no refinement on resume: {p.stderr}")
    diff = [k for k in differing(ref, out) if not k.startswith("segments")]
    check(not diff, f"resumed refinement differs: {diff}")


# The resume's summary line: edges, and those taken from the journals.
FROM = re.compile(r"refinement: (\d+) edge\(s\) \((\d+) from the journals\)")


def journaled(out):
    """Crossing records in the journals (src/sweep/journal.c: each starts
    with the 8-byte magic SSWEDGE1)."""
    return sum(open(j, "rb").read().count(b"SSWEDGE1")
               for j in glob.glob(out + ".journal.*"))


def refining(tmp, name, crossings=16):
    """A 2-rank run whose journals hold `crossings` crossings: the
    refinement is under way (a seventh of it). Returns the run, its config
    and output and its ranks' PIDs, rank 1's first."""
    cfg, out = write(tmp, name)
    p = subprocess.Popen([MPIEXEC, "--oversubscribe", "-np", "2", EXE, "run",
                          cfg], text=True, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, env=ENV)
    pids = []
    while len(pids) < 2 and p.poll() is None:
        time.sleep(0.005)
        pids = ranks_of(cfg)
    rank1 = next((q for q in pids if "OMPI_COMM_WORLD_RANK=1\0" in
                  open(f"/proc/{q}/environ", errors="replace").read()),
                 pids[-1] if pids else None)
    while journaled(out) < crossings and p.poll() is None:
        time.sleep(0.005)
    check(p.poll() is None, f"{name}: ended before it was interrupted")
    return p, cfg, out, ([rank1] + [q for q in pids if q != rank1]
                         if rank1 else [])


def same_boundaries(ref, out, what):
    """Every dataset and /boundaries' attributes as in ref."""
    diff = differing(ref, out)
    with h5py.File(ref, "r") as a, h5py.File(out, "r") as b:
        attrs = [k for k in a["boundaries"].attrs if not np.array_equal(
            a["boundaries"].attrs[k], b["boundaries"].attrs.get(k))]
    check(not diff and not attrs, f"{what}: differs in {diff} {attrs}")


def resumed(tmp, name, ranks, ref, what):
    """Resumes on `ranks`; the count of edges taken from the journals."""
    out, _, p = run(tmp, name, ranks, 1)
    m = FROM.search(p.stderr)
    check(m and 0 < int(m[2]) < int(m[1]),
          f"{what}: no journaled edges taken: {p.stderr}")
    same_boundaries(ref, out, what)
    check(not glob.glob(out + ".journal.*"), f"{what}: journals left")
    if m:
        print(f"{what}: {m[2]} of {m[1]} edges from the journals")
    return int(m[2]) if m else -1


def check_journaled(tmp, ref):
    """SIGKILL to the ranks while refining, resumed on 3 ranks; SIGTERM to
    rank 1 while refining: exit 3, "interrupted", resumed on 1 rank."""
    p, _, _, pids = refining(tmp, "sigkill")
    for q in pids:  # both ranks at once: a job killed mid-refinement
        try:
            os.kill(q, signal.SIGKILL)
        except ProcessLookupError:  # ended by mpirun already
            pass
    p.communicate(timeout=120)
    check(p.returncode != 0, f"SIGKILL: exit {p.returncode}")
    resumed(tmp, "sigkill", 3, ref, "killed, resumed on 3 ranks")

    p, _, out, pids = refining(tmp, "sigterm")
    if pids:
        os.kill(pids[0], signal.SIGTERM)
    _, err = p.communicate(timeout=120)
    m = re.search(r"signal 15 received by rank 1: refinement stopped with "
                  r"(\d+) of (\d+) edge", err)
    check(p.returncode == 3 and m, f"SIGTERM: exit {p.returncode}: {err}")
    with h5py.File(out, "r") as f:
        status = f.attrs["status"]
    check(status in ("interrupted", b"interrupted"), f"status {status!r}")
    taken = resumed(tmp, "sigterm", 1, ref, "stopped, resumed on 1 rank")
    check(m and taken == int(m[1]),
          f"the stop journaled {m and m[1]} edges, the resume took {taken}")


def main():
    with tempfile.TemporaryDirectory() as tmp:
        ref, _, _ = run(tmp, "r1t1", 1, 1)
        check_contents(ref)
        for ranks, threads in ((2, 1), (3, 1), (1, 2), (2, 2)):
            out, _, _ = run(tmp, f"r{ranks}t{threads}", ranks, threads)
            diff = differing(ref, out)
            check(not diff, f"{ranks} ranks x {threads} threads: {diff}")
        plain, _, _ = run(tmp, "plain", 2, 1, False)
        diff = differing(ref, plain)
        check(diff and all(k.startswith("boundaries/") for k in diff),
              f"without [refine]: {diff}")
        check_resume(tmp, ref)
        check_journaled(tmp, ref)
        check_critical(tmp)
    return exit_status()


if __name__ == "__main__":
    sys.exit(main())
