#!/usr/bin/python3
"""Refined crossings on phase diagrams: a sweep with [refine] (made here
by the engine, mpirun -np 2) over theta x a at two values of r. On each
slice, and with the axes swapped, the drawn crossing markers are exactly
the file's /boundaries rows whose edge lies in the slice (both grid
points, along a plotted axis): at (position, the other axis's grid value),
bit for bit; the rows of the other slice are not drawn. Every drawn
crossing of Z = 0 and L1 = 0 lies within the refinement's tol of the exact
zero along its edge, found here by bisection on this test's own tensor
formula (docs/theory/model.md sec. 1: Z = rho pi (A^2 - B^2) sin(2 theta)
/ 2, L1 = m a + r N_F - s Z_F), itself checked against the file's Z and L1.
The legend names the overlay with its tol; --no-refined, refined=False
and a file without /boundaries draw none.

Usage: test_refined_figures.py SLEIGHSWEEP [MPIEXEC]
"""
import contextlib
import io
import math
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ANALYSIS = os.path.join(HERE, "..", "..", "analysis")
sys.path.insert(0, os.path.join(ANALYSIS, "..", "python"))
sys.path.insert(0, os.path.join(HERE, ".."))

import h5py  # noqa: E402
import numpy as np  # noqa: E402

from sleighsweep import phase_diagram  # noqa: E402
from sswtest import ENV, check, exit_status  # noqa: E402

EXE = sys.argv[1]
MPIEXEC = sys.argv[2] if len(sys.argv) > 2 else "mpirun"
TOL = 1e-7
CONFIG = """[body]
m = 1
I0 = 0.5
rho = 1
[grid]
theta = linspace(2deg, 178deg, 10)
a = linspace(-0.45, 0.35, 6)
b = 0.1
r = 0.2, 0.3
s = 0.05
A = 0.5
B = 0.3
[ensemble]
trajectories = 2
seed = 1
[integrator]
eta = 0.8
tol = 1e-5
[output]
file = {out}
"""
REFINE = """[refine]
classes = regime, loops
tol = {tol}
"""
AXES = ("theta", "a", "b", "r", "s", "A", "B")


def run(tmp, name, refine):
    cfg = os.path.join(tmp, name + ".ini")
    out = os.path.join(tmp, name + ".h5")
    with open(cfg, "w") as f:
        f.write(CONFIG.format(out=out) +
                (REFINE.format(tol=TOL) if refine else ""))
    p = subprocess.run([MPIEXEC, "--oversubscribe", "-np", "2", EXE, "run",
                        "--quiet", cfg], text=True, capture_output=True,
                       env=dict(ENV, OMP_NUM_THREADS="1"), timeout=300)
    check(p.returncode == 0, f"{name}: exit {p.returncode}: {p.stderr}")
    return out


def l1_z(p):
    """(L1, Z): body L1 = m a, Z = 0; fluid Z_F, N_F of Model I and the
    coupling row q^T M2 with q = (-s, r) (model.md sec. 1)."""
    th = p["theta"]
    nf = p["rho"] * math.pi * (p["A"] ** 2 * np.cos(th) ** 2 +
                               p["B"] ** 2 * np.sin(th) ** 2)
    zf = p["rho"] * math.pi * (p["A"] ** 2 - p["B"] ** 2) * \
        np.sin(2 * th) / 2
    return p["m"] * p["a"] + p["r"] * nf - p["s"] * zf, zf


def bisect(f, lo, hi):
    flo = f(lo)
    check(flo * f(hi) < 0, f"no sign change on [{lo!r}, {hi!r}]")
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if mid in (lo, hi):
            break
        fm = f(mid)
        if fm == 0:
            return mid
        if (fm < 0) == (flo < 0):
            lo, flo = mid, fm
        else:
            hi = mid
    return 0.5 * (lo + hi)


def names(d):
    m = d.attrs["flag_meanings"]
    return (m.decode() if isinstance(m, bytes) else m).split()


def file_rows(path):
    """Every /boundaries row: (axis name, indicator name, position, the
    grid indices of point_lo and point_hi), and the grid."""
    with h5py.File(path, "r") as f:
        g = f["boundaries"]
        coords = {a: f[a][()] for a in AXES}
        shape = tuple(len(coords[a]) for a in AXES)
        an, inn = names(g["axis"]), names(g["indicator"])
        rows = [(an[ax], inn[ind], pos,
                 np.unravel_index(int(lo), shape),
                 np.unravel_index(int(hi), shape))
                for ax, ind, pos, lo, hi in zip(
                    g["axis"][()], g["indicator"][()], g["position"][()],
                    g["point_lo"][()], g["point_hi"][()])]
        attrs = {k: float(f.attrs[k]) for k in ("m", "rho")}
        z, l1 = f["Z"][()], f["L1"][()]
    return rows, coords, attrs, z, l1


def expected(rows, coords, x, y, r_index):
    """The (x, y) points of the rows on the slice r = coords['r'][r_index]
    (every other axis has one value), as the map draws them."""
    out = []
    for ax, _, pos, lo, hi in rows:
        if ax not in (x, y) or lo[3] != r_index or hi[3] != r_index:
            continue
        other = y if ax == x else x
        g = coords[other][lo[AXES.index(other)]]
        out.append((pos, g) if ax == x else (g, pos))
    return sorted(out)


def drawn(pd):
    pts = []
    for line in pd.axes[0].lines:
        if str(line.get_gid()).startswith("refined:"):
            pts += list(zip(line.get_xdata(), line.get_ydata()))
    return sorted((float(a), float(b)) for a, b in pts)


def check_closed_form(path):
    rows, coords, attrs, z, l1 = file_rows(path)
    grid = np.meshgrid(*(coords[a] for a in AXES), indexing="ij")
    want_l1, want_z = l1_z(dict(zip(AXES, grid), **attrs))
    check(np.allclose(want_l1, l1, rtol=0, atol=1e-13) and
          np.allclose(want_z, z, rtol=0, atol=1e-13),
          "the test's L1, Z differ from the file's")
    worst, n = 0.0, 0
    for ax, ind, pos, lo, hi in rows:
        if ind not in ("Z", "L1"):
            continue
        body = {a: float(coords[a][i]) for a, i in zip(AXES, lo)}
        body.update(attrs)
        k = AXES.index(ax)
        which = ("L1", "Z").index(ind)
        exact = bisect(lambda v: l1_z(dict(body, **{ax: v}))[which],
                       float(coords[ax][lo[k]]), float(coords[ax][hi[k]]))
        worst = max(worst, abs(pos - exact))
        n += 1
    check(n >= 10, f"only {n} Z = 0 / L1 = 0 crossings")
    check(worst <= TOL, f"a Z/L1 crossing {worst:.3g} from the closed form, "
          f"beyond tol {TOL:g}")
    print(f"{n} Z = 0 / L1 = 0 crossings, farthest {worst:.2g} from the "
          "closed form")


def check_slices(path):
    rows, coords, _, _, _ = file_rows(path)
    kinds = {ind for _, ind, _, _, _ in rows}
    check({"Z", "L1", "turns"} <= kinds, f"indicators in the file: {kinds}")
    total = 0
    for x, y in (("theta", "a"), ("a", "theta")):
        for ri, rv in enumerate(coords["r"]):
            with contextlib.redirect_stderr(io.StringIO()):
                pd = phase_diagram.plot_phase_diagram(
                    path, x=x, y=y, quantity="loops", fix={"r": rv},
                    quiet=True)
            want = expected(rows, coords, x, y, ri)
            got = drawn(pd)
            check(len(want) > 0 and got == want,
                  f"{x} x {y}, r = {rv:g}: {len(got)} drawn crossings, "
                  f"{len(want)} in the file's slice, or at other places")
            total += len(got)
            labels = [h.get_label() for h in pd.handles]
            check(any(lab.startswith(f"refined crossings (tol {TOL:g})")
                      for lab in labels),
                  f"no legend entry for the refined crossings: {labels}")
            r = pd.panels[0].refined
            check(np.all(np.isin(r["axis"], (x, y))),
                  "a refined row off the plotted axes")
            phase_diagram.sswplot.plt.close(pd.fig)
    on_slices = sum(1 for ax, _, _, lo, hi in rows
                    if ax in ("theta", "a") and lo[3] == hi[3])
    check(total == 2 * on_slices, f"{total} drawn over both slices and "
          f"orientations, {on_slices} rows on the slices")
    print(f"{len(rows)} crossings in the file, {on_slices} on the "
          "(theta, a) slices, every one drawn at its position")


def check_off(path, plain, tmp):
    for p, kw in ((path, {"refined": False}), (plain, {})):
        pd = phase_diagram.plot_phase_diagram(p, x="theta", y="a",
                                              quantity="regime", quiet=True,
                                              fix={"r": 0.3}, **kw)
        check(not drawn(pd) and pd.panels[0].refined is None,
              f"{os.path.basename(p)} {kw}: refined crossings drawn")
        phase_diagram.sswplot.plt.close(pd.fig)
    for extra in ([], ["--no-refined"]):
        out = os.path.join(tmp, f"cli{len(extra)}.png")
        with contextlib.redirect_stderr(io.StringIO()):
            rc = phase_diagram.main([path, "--x", "theta", "--y", "a",
                                     "--fix", "r=0.3", "--out", out] + extra)
        check(rc == 0 and os.path.getsize(out) > 0,
              f"phase_diagram.py {' '.join(extra)}: exit {rc}")


def main():
    with tempfile.TemporaryDirectory() as tmp:
        path = run(tmp, "refined", True)
        plain = run(tmp, "plain", False)
        check_closed_form(path)
        check_slices(path)
        check_off(path, plain, tmp)
    status = exit_status()
    print("refined figures: " + ("all checks passed" if status == 0 else
                                 "FAILED"))
    return status


if __name__ == "__main__":
    sys.exit(main())
