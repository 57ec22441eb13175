#!/usr/bin/python3
"""Maps over the run axes Gamma and energy (a sweep whose grid varies them,
made here by the engine): sswfile reads the file's nine axes; the
(Gamma, energy) map holds the file's slice; --critical draws H = H_c where
the exact critical energy H_c(Gamma) = D kappa^2 / (2 E), kappa = rho Gamma
r, computed here from the file's J, M, L1, L2, Z (docs/theory/circulation.md
sec. 3), crosses the drawn grid edge (every vertex, and a vertex on every
such edge), and the drift energies H_n = H_c n (2|c1| + n) / (|c1| + n)^2
(sec. 4) likewise (the edge, or for a corner-cut cell the cell, the exact
curve crosses); --fix Gamma=..., energy=... pick the slices of the
datasets; titles name Gamma and H alike from an attribute or a fixed
coordinate; the energy axis is logarithmic; loops per arc and the period
draw as quantities; samples of a swept point are found by the flat index
over the nine axes.

Usage: test_run_axes_figures.py SLEIGHSWEEP [MPIEXEC]
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
from matplotlib.collections import LineCollection  # noqa: E402

from sleighsweep import gallery  # noqa: E402
from sleighsweep import phase_diagram  # noqa: E402
from sleighsweep import sweep as sswfile  # noqa: E402
from sleighsweep import trajectory  # noqa: E402
from sswtest import ENV, check, exit_status  # noqa: E402

EXE = sys.argv[1]
MPIEXEC = sys.argv[2] if len(sys.argv) > 2 else "mpirun"
GAMMAS = np.linspace(0.25, 3.0, 12)
# four decades, four values a decade: H_c(Gamma) from 0.05 to 1.85
ENERGIES = [float(f"{10 ** (-2 + k / 4):.6g}") for k in range(17)]
CONFIG = """[body]
m = 1
I0 = 0.5
rho = 1
[grid]
theta = 60deg, 120deg
a = 0.2
b = 0.1
r = 0.2, 0.3
s = -0.2
A = 0.5
B = 0.3
Gamma = linspace(0.25, 3, 12)
energy = {energies}
[ensemble]
trajectories = 2
[integrator]
eta = 0.8
tol = 1e-5
[output]
file = {out}
samples = 1
sample_nodes = 16
sample_points = theta = 60deg, r = 0.3, Gamma = 2, energy = 0.316228
"""
# one Gamma and one energy (root attributes), the same body
SINGLE = """[body]
m = 1
I0 = 0.5
rho = 1
Gamma = 2
[grid]
theta = 60deg, 120deg
a = 0.2
b = 0.1
r = 0.2, 0.3
s = -0.2
A = 0.5
B = 0.3
[ensemble]
trajectories = 2
energy = 0.316228
[output]
file = {out}
"""
# storage index of (theta, r) = (60deg, 0.3): file[0, 0, 0, 1, ...]
T60, R03 = 0, 1
EDGE_TOL = 1e-9  # relative: a vertex on a grid line, a crossing on an edge


def quiet(fn, *a, **k):
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(buf):
        return fn(*a, **k), buf.getvalue()


def run(tmp, name, text):
    out = os.path.join(tmp, name + ".h5")
    cfg = os.path.join(tmp, name + ".ini")
    with open(cfg, "w") as fh:
        fh.write(text.format(out=out, energies=", ".join(
            f"{e:g}" for e in ENERGIES)))
    p = subprocess.run([MPIEXEC, "--oversubscribe", "-np", "2", EXE, "run",
                        "--quiet", cfg], env=ENV, capture_output=True,
                       text=True, timeout=300)
    check(p.returncode == 0, f"{name}: run {p.returncode} {p.stderr}")
    return out


def oracle(f, t=T60, r=R03):
    """(D, E, c1, rho r) of the body at storage indices (theta, r), from
    the file's tensor datasets (circulation.md sec. 1, exact-path.md)."""
    k = (t, 0, 0, r, 0, 0, 0, 0, 0)
    J, M, L1, L2, Z = (float(f[n][k]) for n in ("J", "M", "L1", "L2", "Z"))
    d = M * J - L2 ** 2
    e = J * Z ** 2 + 2 * Z * L1 * L2 + M * L1 ** 2
    c1 = math.sqrt(d) * (Z * L2 + M * L1) / e
    return d, e, c1, float(f.attrs["rho"]) * float(f["r"][r])


def hc_exact(gamma, d, e, rho_r):
    kappa = rho_r * np.asarray(gamma, dtype=float)
    return d * kappa ** 2 / (2 * e)


def hn_exact(gamma, n, d, e, c1, rho_r):
    c = abs(c1)
    return hc_exact(gamma, d, e, rho_r) * n * (2 * c + n) / (c + n) ** 2


def on_grid(v, grid):
    """Index of the grid value v lies on (relative EDGE_TOL), or None."""
    k = int(np.argmin(np.abs(grid - v)))
    return k if abs(grid[k] - v) <= EDGE_TOL * abs(grid[k]) else None


def bracket(v, grid):
    """(k, k + 1) with grid[k] <= v <= grid[k + 1]."""
    k = int(np.searchsorted(grid, v)) - 1
    return max(0, min(k, len(grid) - 2))


def check_level(lines, curve, gx, gy, what, slack=0):
    """The exact curve H = curve(Gamma) (increasing in Gamma > 0) passes
    within `slack` cells of every vertex of the drawn polylines: through
    the grid edge a vertex lies on (slack 0: that edge itself), or, for a
    vertex inside a cell (where a neighbour is not defined, the contour
    cuts the cell's corner), through that cell. Returns (vertices, off)."""
    n, worst = 0, 0
    for p in lines:
        for vx, vy in p:
            n += 1
            j, i = on_grid(vy, gy), on_grid(vx, gx)
            if j is not None:  # a row: Gamma between two columns
                k = bracket(vx, gx)
                lo = gx[max(0, k - slack)]
                hi = gx[min(len(gx) - 1, k + 1 + slack)]
                # the exact curve crosses H = gy[j] between lo and hi
                ok = curve(lo) <= gy[j] * (1 + EDGE_TOL) and \
                    curve(hi) >= gy[j] * (1 - EDGE_TOL)
            elif i is not None:  # a column: H between two rows
                k = bracket(vy, gy)
                lo = gy[max(0, k - slack)]
                hi = gy[min(len(gy) - 1, k + 1 + slack)]
                h = curve(gx[i])
                ok = lo * (1 - EDGE_TOL) <= h <= hi * (1 + EDGE_TOL)
            else:  # inside a cell (a corner-masked cell's diagonal)
                ki, kj = bracket(vx, gx), bracket(vy, gy)
                lo = gx[max(0, ki - slack)]
                hi = gx[min(len(gx) - 1, ki + 1 + slack)]
                ylo = gy[max(0, kj - slack)]
                yhi = gy[min(len(gy) - 1, kj + 1 + slack)]
                # the exact curve passes through the cell (the block)
                ok = curve(lo) <= yhi * (1 + EDGE_TOL) and \
                    curve(hi) >= ylo * (1 - EDGE_TOL)
            if not ok:
                worst += 1
                check(False, f"{what}: vertex ({vx:.6g}, {vy:.6g}) not "
                      f"within {slack} cell(s) of the exact curve")
    return n, worst


def drawn_critical(ax):
    return [np.asarray(s) for c in ax.collections
            if isinstance(c, LineCollection) and np.allclose(
                c.get_colors()[0][:3], (0.839, 0.153, 0.157), atol=2e-3)
            for s in c.get_segments()]


def test_sweep(path):
    with sswfile.Sweep(path) as s:
        check(s.axes == sswfile.ALL_AXES[:9], f"Sweep.axes {s.axes}")
        check(s.shape == (2, 1, 1, 2, 1, 1, 1, len(GAMMAS), len(ENERGIES)),
              f"Sweep.shape {s.shape}")
        check(np.array_equal(s.coords["Gamma"], s.f["Gamma"][()]) and
              np.array_equal(s.coords["energy"], ENERGIES),
              "Sweep.coords of the run axes")
        b = s.body()
        check("Gamma" not in b and "energy" not in b and
              b.get("swept") == ("Gamma", "energy"), f"Sweep.body {b}")
        idx, chosen = quiet(s.select, ("Gamma", "energy"),
                            {"theta": math.radians(60), "r": 0.3})[0]
        e = s.coordinate("energy", idx)
        g = s.coordinate("Gamma", idx)
        check(e.shape == (len(GAMMAS), len(ENERGIES)) and
              np.array_equal(e[3], ENERGIES) and
              np.array_equal(g[:, 5], s.coords["Gamma"]),
              "Sweep.coordinate: the coordinates broadcast over the slice")
    # --fix parsing takes the run axes
    fix = sswfile.parse_assignments(["Gamma=2", "energy=0.5,r=0.3"])
    check(fix == {"Gamma": 2.0, "energy": 0.5, "r": 0.3}, f"parse {fix}")
    check(sswfile.normalize_fix({"energy": "1e-2"}) == {"energy": 0.01},
          "normalize_fix energy")
    try:
        sswfile.parse_assignments(["H=1"])
        check(False, "--fix H=1 accepted")
    except sswfile.UsageError as err:
        check("Gamma, energy" in str(err), f"unknown axis message: {err}")
    # titles: Gamma and H alike from root attributes or fixed coordinates
    attrs = {"m": 1.0, "I0": 0.5, "rho": 1.0, "Gamma": 2.0, "energy": 0.5}
    coord = {"m": 1.0, "I0": 0.5, "rho": 1.0, "swept": ("Gamma", "energy")}
    a = sswfile.title_parts({"r": (0.3, 1)}, attrs)
    c = sswfile.title_parts({"r": (0.3, 1), "Gamma": (2.0, 7),
                             "energy": (0.5, 3)}, coord)
    check(a == c and ("Γ", "2") in a[0] and ("H", "0.5") in a[0],
          f"titles: attributes {a}, coordinates {c}")
    # Gamma plotted: H named; energy plotted: Gamma named, no H
    t = sswfile.title_parts({"energy": (0.5, 3)}, coord)[0]
    check(("H", "0.5") in t and not any(p[0] == "Γ" for p in t),
          f"title of a Gamma map: {t}")
    t = sswfile.title_parts({"Gamma": (2.0, 7)}, coord)[0]
    check(("Γ", "2") in t and not any(p[0] == "H" for p in t),
          f"title of an energy map: {t}")
    t = sswfile.title_parts({"Gamma": (0.0, 0), "energy": (0.5, 3)},
                            coord)[0]
    check(not any(p[0] in ("Γ", "H") for p in t),
          f"Gamma = 0: no circulation in the title: {t}")


def test_map(path, tmp):
    out = os.path.join(tmp, "ge.png")
    (res, said) = quiet(phase_diagram.plot_phase_diagram, path, x="Gamma",
                        y="energy", quantity="regime", critical=True,
                        shade="period", fix={"theta": "60deg", "r": 0.3},
                        out=out)
    check(os.path.getsize(out) > 2000, "(Gamma, energy) map: no PNG")
    p = res.panels[0]
    with h5py.File(path, "r") as f:
        reg = f["regime"][T60, 0, 0, R03, 0, 0, 0].astype(float).T
        per = f["period"][T60, 0, 0, R03, 0, 0, 0].T
        hc = f["critical_energy"][T60, 0, 0, R03, 0, 0, 0].T
        d, e, c1, rho_r = oracle(f)
        gx, gy = f["Gamma"][()], f["energy"][()]
    check(np.array_equal(p.z, reg) and np.array_equal(p.shade, per,
                                                      equal_nan=True),
          "(Gamma, energy) map: the drawn values are not the file's slice")
    check(np.array_equal(p.x, gx) and np.array_equal(p.y, gy),
          "(Gamma, energy) map: coordinates")
    # the ratio uses each point's energy: an identity
    check(np.array_equal(p.critical_ratio, hc / np.asarray(gy)[:, None]),
          "critical_ratio is not critical_energy / the point's energy")
    # the engine's critical energy against the closed form from the tensor
    exact = hc_exact(gx, d, e, rho_r)
    dev = np.max(np.abs(hc[0] / exact - 1))
    check(dev <= 1e-12, f"critical_energy vs D kappa^2 / (2 E): {dev:.3g}")
    check(p.log == {"x": False, "y": True} and
          res.axes[0].get_yscale() == "log" and
          res.axes[0].get_xscale() == "linear",
          f"axis scales {p.log} {res.axes[0].get_yscale()}")
    # H = H_c: drawn, on the grid edges the exact curve crosses, and on
    # every such edge
    lines = p.boundaries["H=Hc"]
    segs = drawn_critical(res.axes[0])
    check(lines and len(segs) == len(lines) and all(
        np.array_equal(a, b) for a, b in zip(lines, segs)),
        f"H = H_c: drawn {len(segs)} polylines, computed {len(lines)}")
    n, bad = check_level(lines, lambda g: hc_exact(g, d, e, rho_r), gx, gy,
                         "H = H_c")
    above = np.asarray(gy)[:, None] < hc_exact(gx, d, e, rho_r)[None, :]
    cross = int(np.count_nonzero(above[:, :-1] != above[:, 1:]) +
                np.count_nonzero(above[:-1, :] != above[1:, :]))
    check(n == cross, f"H = H_c: {n} vertices, the exact curve crosses "
          f"{cross} grid edges")
    print(f"H = H_c: {n} vertices, each on a grid edge the exact H_c(Gamma) "
          f"crosses ({cross} edges), {bad} off")
    # the periodic regime exactly where H < H_c (exact)
    wrong = int(np.count_nonzero((reg == 4) != above))
    check(wrong == 0, f"{wrong} points' regime disagrees with H < H_c")
    # drift energies H_n: level sets of the measured heading per period
    res_lv = p.boundaries.get("resonances") or {}
    check(set(res_lv) >= {1, 2}, f"resonances drawn: {sorted(res_lv)}")
    for k, lv in sorted(res_lv.items()):
        n, bad = check_level(lv, lambda g, k=k: hn_exact(g, k, d, e, c1,
                                                         rho_r),
                             gx, gy, f"H_{k}")
        print(f"H_{k}: {n} vertices on the grid edge or in the cell the "
              f"exact H_n(Gamma) crosses, {bad} off")
    handles = [h.get_label() for h in res.handles]
    check(phase_diagram.CRITICAL_LABEL in handles and any(
        "drift" in h for h in handles), f"legend {handles}")
    check("no H = H_c" not in said, said)


def test_slices(path, tmp):
    with h5py.File(path, "r") as f:
        gx, gy = f["Gamma"][()], f["energy"][()]
        loops = f["loops"][()]
        lower = f["loops_lower"][()]
        period = f["period"][()]
        regime = f["regime"][()]
    # (r, Gamma) at a fixed energy: the nearest grid value
    (res, said) = quiet(phase_diagram.plot_phase_diagram, path, x="r",
                        y="Gamma", quantity="loops",
                        fix={"energy": 0.3, "theta": "120deg"})
    k = int(np.argmin(np.abs(gy - 0.3)))
    p = res.panels[0]
    want = loops[1, 0, 0, :, 0, 0, 0, :, k].astype(float).T
    check(np.array_equal(p.z, want) and p.fixed["energy"] == (gy[k], k)
          and res.kind == "categorical",
          f"(r, Gamma) at energy 0.3: slice {p.fixed.get('energy')}")
    check(f"fixed energy = {gy[k]:.4g}" in said and "H = 0.3162" in
          p.title and "Γ" not in p.title, f"{said!r} {p.title!r}")
    check(res.label.endswith("arc $g > 0$"), f"loops label {res.label}")
    # (theta, energy) at a fixed Gamma: the lower arc's loops
    (res, said) = quiet(phase_diagram.plot_phase_diagram, path,
                        x="theta", y="energy", quantity="loops_lower",
                        fix={"Gamma": 2.0, "r": 0.3}, critical=True)
    i = int(np.argmin(np.abs(gx - 2.0)))
    p = res.panels[0]
    check(np.array_equal(p.z, lower[:, 0, 0, R03, 0, 0, 0, i, :]
                         .astype(float).T) and p.fixed["Gamma"] == (gx[i], i)
          and "Γ = 2" in p.title and "H =" not in p.title,
          f"(theta, energy) at Gamma 2: {p.fixed.get('Gamma')} {p.title!r}")
    check(p.boundaries.get("H=Hc"), "(theta, energy): no H = H_c drawn")
    # the period over (Gamma, energy): continuous, log colour scale
    (res, _) = quiet(phase_diagram.plot_phase_diagram, path, x="Gamma",
                     y="energy", quantity="period",
                     fix={"theta": "60deg", "r": 0.3})
    check(np.array_equal(res.panels[0].z, period[T60, 0, 0, R03, 0, 0, 0].T,
                         equal_nan=True) and res.kind == "continuous",
          "period map: not the file's slice")
    # a linear energy axis on request
    (res, _) = quiet(phase_diagram.plot_phase_diagram, path, x="Gamma",
                     y="energy", quantity="regime", yscale="linear",
                     fix={"theta": "60deg", "r": 0.3})
    check(res.axes[0].get_yscale() == "linear" and not res.panels[0].log["y"],
          "--yscale linear")
    # --panels over Gamma: one panel per listed value, the file's slices
    (res, _) = quiet(phase_diagram.plot_phase_diagram, path, x="r",
                     y="energy", quantity="regime", panels="Gamma",
                     fix={"Gamma": [1.0, 2.0], "theta": "60deg"})
    for p, g in zip(res.panels, (1.0, 2.0)):
        i = int(np.argmin(np.abs(gx - g)))
        check(np.array_equal(p.z, regime[T60, 0, 0, :, 0, 0, 0, i, :]
                             .astype(float).T), f"--panels Gamma {g}")
    # the command line
    png = os.path.join(tmp, "cli.png")
    cmd = [sys.executable, os.path.join(ANALYSIS, "phase_diagram.py"), path,
           "--x", "Gamma", "--y", "energy", "--quantity", "regime",
           "--critical", "--fix", "theta=60deg", "r=0.3", "--out", png]
    r = subprocess.run(cmd, env=ENV, capture_output=True, text=True)
    check(r.returncode == 0 and os.path.getsize(png) > 2000,
          f"phase_diagram.py --x Gamma --y energy: {r.returncode} {r.stderr}")
    return png


def test_single(path, tmp):
    """A file with one Gamma and energy: no run axes; --x Gamma refused,
    --fix Gamma of the attribute's value quiet, another value noted."""
    with sswfile.Sweep(path) as s:
        check(s.axes == sswfile.BODY_AXES and s.run_value("Gamma") == 2.0,
              f"single-valued file: axes {s.axes}")
    r = subprocess.run([sys.executable, os.path.join(
        ANALYSIS, "phase_diagram.py"), path, "--x", "Gamma", "--y",
        "energy", "--out", os.path.join(tmp, "x.png")], env=ENV,
        capture_output=True, text=True)
    check(r.returncode == 2 and "Gamma is not an axis" in r.stderr and
          "Gamma = 2" in r.stderr, f"--x Gamma on a 7-D file: {r.stderr}")
    (res, said) = quiet(phase_diagram.plot_phase_diagram, path, x="r",
                        y="theta", quantity="regime",
                        fix={"Gamma": 2, "energy": 0.316228})
    check("not swept" not in said and "Γ = 2" in res.panels[0].title and
          "H = 0.3162" in res.panels[0].title, f"{said!r}")
    (res, said) = quiet(phase_diagram.plot_phase_diagram, path, x="r",
                        y="theta", quantity="regime", fix={"Gamma": 1})
    check("Gamma is not swept" in said, f"--fix Gamma=1: {said!r}")


def test_samples(path):
    """The sample of a swept point: found by the flat index over the nine
    axes, at that point's energy and Gamma."""
    (trs, _), _ = quiet(trajectory.load_samples, path, {
        "theta": "60deg", "r": 0.3, "Gamma": 2, "energy": 0.316228})
    with h5py.File(path, "r") as f:
        i = int(np.argmin(np.abs(f["Gamma"][()] - 2)))
        k = int(np.argmin(np.abs(f["energy"][()] - 0.316228)))
        e = float(f["energy"][k])
        check(float(f["samples/energy"][0]) == e and
              float(f["samples/Gamma"][0]) == f["Gamma"][i],
              "the sample point is not the one asked for")
    t = trs[0]
    check(abs(t.H[0] / e - 1) < 1e-9 and t.body.get("Gamma") == 2.0 and
          abs(t.kappa - 0.6) < 1e-12,
          f"sample: H {t.H[0]} (energy {e}), Gamma {t.body.get('Gamma')}, "
          f"kappa {t.kappa}")


def test_gallery(tmp):
    """The gallery's Gamma x energy figure from the example config (the
    engine run figures.sh makes): drawn, its points on their side of the
    closed-form H_c(Gamma), its c1 the oracle's."""
    data, out = os.path.join(tmp, "data"), os.path.join(tmp, "gallery")
    os.makedirs(data)
    os.makedirs(out)
    example = os.path.join(HERE, "..", "..", "jobs", "examples",
                           "fig_gamma_energy.ini")
    p = subprocess.run([MPIEXEC, "--oversubscribe", "-np", "2", EXE, "run",
                        "--quiet", "--output", os.path.join(
                            data, gallery.SWEEPGE), example], env=ENV,
                       capture_output=True, text=True, timeout=300)
    check(p.returncode == 0, f"{example}: {p.returncode} {p.stderr}")
    g = gallery.Gallery(data, out, ["png"])
    r, _ = quiet(gallery.fig_circ_energy, g)
    png = os.path.join(out, "circulation_gamma_energy.png")
    check(os.path.getsize(png) > 2000, "gallery: no Gamma x energy figure")
    with h5py.File(os.path.join(data, gallery.SWEEPGE), "r") as f:
        check(f["regime"].shape[7:] == (23, 22), "the example's grid")
        _, _, c1, _ = oracle(f, 0, 0)
    caption = g.entries[0][2]
    check(r["wrong_side"] == 0 and r["c1"] == c1 and
          {1, 2} <= set(r["resonances"]) and "H = H_c" in caption and
          "H_n = H_c n (2|c1| + n) / (|c1| + n)^2" in caption,
          f"gallery: {r['wrong_side']} wrong side, c1 {r['c1']} vs {c1}, "
          f"resonances {r['resonances']}")
    return png


def main():
    with tempfile.TemporaryDirectory() as tmp:
        path = run(tmp, "gamma_energy", CONFIG)
        single = run(tmp, "single", SINGLE)
        test_sweep(path)
        test_map(path, tmp)
        test_slices(path, tmp)
        test_single(single, tmp)
        test_samples(path)
        test_gallery(tmp)
        phase_diagram.sswplot.plt.close("all")
    return exit_status()


if __name__ == "__main__":
    sys.exit(main())
