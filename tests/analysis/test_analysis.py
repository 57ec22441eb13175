#!/usr/bin/python3
"""Analysis scripts on a small sweep made here (mpirun -np 2): figures are
written at the expected size, the data they return equal the file's values,
validate.py passes a correct file and fails a perturbed one, partial files
are drawn with blanks and counted, missing datasets and bad arguments exit
with status 2.

Usage: test_analysis.py SLEIGHSWEEP [MPIEXEC]
"""
import io
import contextlib
import math
import os
import shutil
import struct
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ANALYSIS = os.path.join(HERE, "..", "..", "analysis")
sys.path.insert(0, os.path.join(ANALYSIS, "..", "python"))

import h5py  # noqa: E402
import numpy as np  # noqa: E402

from sleighsweep import phase_diagram  # noqa: E402
from sleighsweep import trajectory  # noqa: E402
from sleighsweep import validate  # noqa: E402

EXE = sys.argv[1]
MPIEXEC = sys.argv[2] if len(sys.argv) > 2 else "mpirun"
PY = sys.executable
ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1",
           OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1", OMP_NUM_THREADS="1")
failures = []

CONFIG = """[body]
m = 1
I0 = 0.5
rho = 1
[grid]
theta = 0, 30deg, 60deg, 90deg, 120deg, 150deg
a = 0, 0.2, 0.5
b = 0, 0.1
A = 0.5
B = 0.3
[ensemble]
trajectories = 3
seed = 3
[output]
file = {out}
samples = 2
sample_nodes = 64
"""


def check(cond, msg):
    if not cond:
        failures.append(msg)
        print("FAILED:", msg, file=sys.stderr)
    return cond


def script(name, *args):
    return subprocess.run([PY, os.path.join(ANALYSIS, name), *map(str, args)],
                          capture_output=True, text=True, env=ENV)


def png_size(path):
    """(width, height) from the PNG header (IHDR)."""
    with open(path, "rb") as fh:
        head = fh.read(24)
    if head[:8] != b"\x89PNG\r\n\x1a\n" or head[12:16] != b"IHDR":
        return None
    return struct.unpack(">II", head[16:24])


def check_png(path, fig, what):
    if not check(os.path.exists(path) and os.path.getsize(path) > 1000,
                 f"{what}: {path} missing or empty"):
        return
    w, h = fig.get_size_inches() * 300  # px may truncate: +-1
    size = png_size(path)
    check(size is not None and abs(size[0] - w) <= 1 and
          abs(size[1] - h) <= 1, f"{what}: PNG is {size}, expected "
          f"{(round(w), round(h))} (300 dpi)")
    import matplotlib.image as mpimg
    img = mpimg.imread(path)
    check(size is not None and img.shape[:2] == (size[1], size[0]) and
          float(img.std()) > 0.01, f"{what}: image {img.shape} blank")


def check_pdf(path, what):
    ok = os.path.exists(path) and os.path.getsize(path) > 1000
    if check(ok, f"{what}: {path} missing or empty"):
        with open(path, "rb") as fh:
            check(fh.read(5) == b"%PDF-", f"{what}: {path} is not a PDF")


def same(a, b):
    a, b = np.asarray(a, float), np.asarray(b, float)
    return a.shape == b.shape and np.array_equal(np.isnan(a), np.isnan(b)) \
        and np.array_equal(a[~np.isnan(a)], b[~np.isnan(b)])


def quiet_call(fn, *a, **k):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        r = fn(*a, **k)
    return r, out.getvalue()


def run_sweep(tmp):
    out = os.path.join(tmp, "sweep.h5")
    cfg = os.path.join(tmp, "sweep.ini")
    with open(cfg, "w") as fh:
        fh.write(CONFIG.format(out=out))
    p = subprocess.run([MPIEXEC, "--oversubscribe", "-np", "2", EXE, "run",
                        "--quiet", cfg], capture_output=True, text=True,
                       env=ENV)
    if not check(p.returncode == 0 and os.path.exists(out),
                 f"sweep failed ({p.returncode}): {p.stderr}"):
        sys.exit(1)
    return out


def test_phase(path, tmp):
    with h5py.File(path, "r") as f:
        file_vals = {q: f[q][:, :, 1, 0, 0, 0, 0].T.astype(float)
                     for q in ("center_spacing", "sense_future", "loops",
                               "regime", "transition_angle")}
    for q in file_vals:
        out = os.path.join(tmp, f"pd_{q}.png")
        res, text = quiet_call(phase_diagram.plot_phase_diagram, path,
                               x="theta", y="a", quantity=q,
                               fix={"b": 0.12}, out=out)
        p = res.panels[0]
        check_png(out, res.fig, f"phase {q}")
        check(same(p.z, file_vals[q]), f"phase {q}: plotted data differ "
              "from the file")
        check(p.fixed["b"] == (0.1, 1) and "fixed b = 0.1 (nearest grid "
              "value" in text, f"phase {q}: --fix b=0.12 not resolved to "
              f"0.1 and said: {text!r}")
        check(p.blank == 0, f"phase {q}: blank {p.blank} on a full file")
        kind = "categorical" if q in ("sense_future", "loops",
                                      "regime") else "continuous"
        check(res.kind == kind, f"phase {q}: kind {res.kind}")
        zx = sorted({round(float(x), 12) for ln in p.boundaries["Z=0"]
                     for x in ln[:, 0]})
        check(zx == [0.0, round(math.pi / 2, 12)], f"phase {q}: Z = 0 lines "
              f"at theta {zx}, expected 0 and pi/2")
        if q in ("loops", "transition_angle"):
            check(len(p.boundaries.get("loops", {})) >= 1,
                  f"phase {q}: no loop level sets")
        if q == "regime":
            check_columns_visible(res, p)
    # CLI: PDF and SVG by suffix, note for an unfixed axis, two panels
    pdf = os.path.join(tmp, "spacing.pdf")
    r = script("phase_diagram.py", path, "--x", "theta", "--y", "a",
               "--quantity", "center_spacing", "--out", pdf)
    check(r.returncode == 0, f"phase CLI pdf: {r.returncode} {r.stderr}")
    check("b has 2 values" in r.stderr and "using the first" in r.stderr,
          f"phase CLI: no note about the unfixed axis b: {r.stderr!r}")
    check_pdf(pdf, "phase CLI")
    svg = os.path.join(tmp, "loops.svg")
    r = script("phase_diagram.py", path, path, "--quantity", "loops",
               "--fix", "b=0", "--angles", "deg", "--out", svg)
    check(r.returncode == 0 and os.path.getsize(svg) > 1000 and
          open(svg).read(200).lstrip().startswith("<?xml"),
          f"phase CLI svg: {r.returncode} {r.stderr}")


def check_columns_visible(res, p):
    """The Z = 0 boundary through the grid points where Z is
    exactly 0 (the line-to-line column at theta = 90 deg) frames those
    cells instead of covering them: the middle of each of them shows its
    category's colour (a black line through the middle hid it)."""
    leg = res.legend  # in the legend row below the panels
    handles = getattr(leg, "legend_handles", None) or leg.legendHandles
    colours = {t.get_text(): np.asarray(h.get_facecolor()[:3]) for t, h in
               zip(leg.get_texts(), handles) if hasattr(h, "get_facecolor")}
    want = {1: "line to line ($Z = 0$)", 0: "uniform ($L_1 = Z = 0$)"}
    fig = res.fig
    fig.canvas.draw()
    img = np.asarray(fig.canvas.buffer_rgba())[:, :, :3] / 255.0
    ax = res.axes[0]
    ex, ey = phase_diagram.edges(p.x), phase_diagram.edges(p.y)
    i = int(np.argmin(np.abs(p.x - math.pi / 2)))
    bad = []
    for j in range(len(p.y)):
        v = int(p.z[j, i])
        cx, cy = 0.5 * (ex[i] + ex[i + 1]), 0.5 * (ey[j] + ey[j + 1])
        px, py = ax.transData.transform((cx, cy))
        got = img[img.shape[0] - 1 - int(round(py)), int(round(px))]
        if v not in want or np.abs(got - colours[want[v]]).max() > 0.02:
            bad.append((j, v, got.round(2).tolist()))
    check(not bad and "Z=0" in p.drawn, f"regime map: the cells at theta = "
          f"pi/2 are not shown in their colour: {bad}")


def test_trajectory(path, tmp):
    at = {"theta": math.radians(60), "a": 0.2, "b": 0.0}
    trajs, blank = trajectory.load_samples(path, at, "all", quiet=True)
    check(len(trajs) == 2 and blank == 0, f"trajectory: {len(trajs)} "
          f"samples, blank {blank}")
    out = os.path.join(tmp, "traj.png")
    res = trajectory.plot_trajectories(trajs, out=out)
    check_png(out, res.fig, "trajectory (sweep)")
    with h5py.File(path, "r") as f:
        i = (2, 1, 0, 0, 0, 0, 0)
        L1, Z = f["L1"][i], f["Z"][i]
        # sample_points = all: the point's slot is its flat index.
        slot = int(np.ravel_multi_index(i, f["L1"].shape))
        check(int(f["samples/point"][slot]) == slot, "samples/point")
        for k, tr in enumerate(res.trajectories):
            for q in ("t", "x", "y", "phi"):
                v = f["samples/" + q][slot, k]
                check(same(getattr(tr, q), v[np.isfinite(v)]),
                      f"trajectory: sample {k} {q} differs from the file")
            want = np.array([tr.x[-1] + L1 / Z * math.sin(tr.phi[-1]),
                             tr.y[-1] - L1 / Z * math.cos(tr.phi[-1])])
            check(np.allclose(tr.centre_future, want, rtol=0, atol=1e-12)
                  and abs(tr.radius - abs(L1 / Z)) < 1e-12,
                  f"trajectory: sample {k} circle {tr.centre_future} "
                  f"{tr.radius}, expected {want} {abs(L1 / Z)}")
            d = np.hypot(*(tr.centre_future - tr.centre_past))
            check(abs(d / f["center_spacing"][i] - 1) < 1e-4,
                  f"trajectory: spacing from the end nodes {d} vs file "
                  f"{f['center_spacing'][i]}")
    # CSV + JSON from `sleighsweep point`, through the command line
    csv = os.path.join(tmp, "seed.csv")
    with open(os.path.join(tmp, "seed.json"), "w") as fh:
        p = subprocess.run([EXE, "point", "--b", "0.1", "--trajectory", csv],
                           stdout=fh, text=True)
    check(p.returncode == 0, "sleighsweep point failed")
    pdf = os.path.join(tmp, "seed.pdf")
    r = script("trajectory.py", csv, "--out", pdf)
    check(r.returncode == 0 and "from the tensor" in r.stdout,
          f"trajectory CLI: {r.returncode} {r.stdout} {r.stderr}")
    check_pdf(pdf, "trajectory CLI")
    import json
    j = json.load(open(os.path.join(tmp, "seed.json")))
    tr = trajectory.load_csv(csv)
    res = trajectory.plot_trajectories([tr])
    data = np.genfromtxt(csv, delimiter=",", names=True)
    check(same(tr.x, data["x"]) and same(tr.y, data["y"]),
          "trajectory: CSV data differ from what was plotted")
    for mine, theirs in ((tr.centre_past, j["center_past"]),
                         (tr.centre_future, j["center_future"])):
        check(np.allclose(mine, theirs, atol=1e-4),
              f"trajectory: centre {mine} vs point JSON {theirs}")
    r = script("trajectory.py", path, "--at", "theta=0", "a=0.5", "--out",
               os.path.join(tmp, "line.png"))
    check(r.returncode == 0 and "no limit circles" in r.stdout,
          f"trajectory on a Z = 0 point: {r.returncode} {r.stdout}")


def test_validate(path, tmp):
    r = script("validate.py", path, "--plot", os.path.join(tmp, "val.png"))
    check(r.returncode == 0 and "PASS" in r.stdout,
          f"validate on a correct file: {r.returncode}\n{r.stdout}{r.stderr}")
    check("no closed form" in r.stdout, "validate: no skipped column")
    check(png_size(os.path.join(tmp, "val.png")) == (2100, 1200),
          "validate --plot: PNG size")
    rep, _ = quiet_call(validate.validate, path)
    with h5py.File(path, "r") as f:
        for c in rep.comparisons:
            m = np.array([f[c.measured_name][w] for w in c.where])
            a = np.array([f[c.analytic_name][w] for w in c.where])
            check(same(m, c.measured) and same(a, c.analytic),
                  f"validate: {c.measured_name} data differ from the file")
            skipped = int(np.sum((f["done"][()] == 1) &
                                 ~np.isfinite(f[c.analytic_name][()])))
            check(c.skipped == skipped, f"validate: {c.measured_name} "
                  f"skipped {c.skipped}, expected {skipped}")
    bad = os.path.join(tmp, "perturbed.h5")
    shutil.copy(path, bad)
    with h5py.File(bad, "r+") as f:
        f["center_spacing"][...] = f["center_spacing"][()] * (1 + 1e-3)
    r = script("validate.py", bad, "--tol", "1e-6")
    check(r.returncode == 1 and "FAIL" in r.stdout,
          f"validate on a perturbed file: {r.returncode}\n{r.stdout}")
    r = script("validate.py", bad, "--tol", "2e-3")
    check(r.returncode == 0, f"validate --tol 2e-3: {r.returncode}")
    slow = os.path.join(tmp, "nonconverged.h5")
    shutil.copy(path, slow)
    with h5py.File(slow, "r+") as f:
        f["converged_fraction"][3, 2, 1, 0, 0, 0, 0] = 2 / 3
        f["flags"][3, 2, 1, 0, 0, 0, 0] = 1
    r = script("validate.py", slow)
    check(r.returncode == 1 and "converged_fraction 0.667" in r.stdout and
          "forward_step_cap" in r.stdout and "theta=90°, a=0.5, b=0.1" in
          r.stdout, f"validate, non-converged point: {r.returncode}\n"
          f"{r.stdout}")
    r = script("validate.py", slow, "--allow-nonconverged")
    check(r.returncode == 0, f"validate --allow-nonconverged: "
          f"{r.returncode}")
    # trajectories started on the line of equilibria: steady, converged,
    # not a failure (validate once failed a healthy sweep over two)
    eq = os.path.join(tmp, "equilibrium.h5")
    shutil.copy(path, eq)
    with h5py.File(eq, "r+") as f:
        f["flags"][3, 2, 1, 0, 0, 0, 0] = 8
        f["flags"][1, 1, 0, 0, 0, 0, 0] = 8
    r = script("validate.py", eq)
    check(r.returncode == 0 and "PASS" in r.stdout and
          "note: 2 point(s) with flag equilibrium_start: trajectories that "
          "started on the line of equilibria" in r.stdout and
          "theta=90°, a=0.5, b=0.1: flags 8 (equilibrium_start)" in r.stdout,
          f"validate, equilibrium starts: {r.returncode}\n{r.stdout}")
    # a point with another benign flag is named by its own flag
    # (from the file's flag_masks / flag_meanings), not as an equilibrium
    # start
    rt = os.path.join(tmp, "rtol.h5")
    shutil.copy(path, rt)
    with h5py.File(rt, "r+") as f:
        f["flags"][3, 2, 1, 0, 0, 0, 0] = 32
        masks = [int(v) for v in f["flags"].attrs["flag_masks"]]
        means = f["flags"].attrs["flag_meanings"]
        means = (means.decode() if isinstance(means, bytes) else
                 means).split()
    name = dict(zip(masks, means))[32]
    r = script("validate.py", rt)
    check(r.returncode == 0 and name == "rtol_not_met" and
          f"note: 1 point(s) with flag {name}" in r.stdout and
          f"theta=90°, a=0.5, b=0.1: flags 32 ({name})" in r.stdout and
          "equilibri" not in r.stdout,
          f"validate, a point flagged {name} only: {r.returncode}\n"
          f"{r.stdout}")
    rep, _ = quiet_call(validate.validate, rt)
    check(rep.benign_counts == {"equilibrium_start": 0, "rtol_not_met": 1}
          and rep.equilibrium_starts == 0 and
          rep.flagged == [((3, 2, 1, 0, 0, 0, 0), 32)],
          f"validate: flagged points {rep.flagged}, counts "
          f"{rep.benign_counts}")
    with h5py.File(eq, "r+") as f:
        f["flags"][1, 1, 0, 0, 0, 0, 0] = 8 | 16
    r = script("validate.py", eq)
    check(r.returncode == 1 and "no_peak" in r.stdout,
          f"validate, equilibrium + no_peak: {r.returncode}\n{r.stdout}")


def test_partial(path, tmp):
    part = os.path.join(tmp, "partial.h5")
    shutil.copy(path, part)
    pending = [(1, 1, 0, 0, 0, 0, 0), (2, 2, 0, 0, 0, 0, 0),
               (4, 0, 0, 0, 0, 0, 0), (5, 2, 1, 0, 0, 0, 0)]
    with h5py.File(part, "r+") as f:
        done = f["done"][()]
        for i in pending:
            done[i] = 0
        f["done"][...] = done
        for name, d in f.items():
            if isinstance(d, h5py.Dataset) and d.shape == done.shape and \
                    d.dtype.kind == "f":
                v = d[()]
                v[done == 0] = np.nan
                d[...] = v
        for q in ("x", "y", "t"):
            v = f["samples/" + q][()]
            v[done.ravel() == 0] = np.nan
            f["samples/" + q][...] = v
    res, text = quiet_call(phase_diagram.plot_phase_diagram, part,
                           quantity="center_spacing", fix={"b": 0},
                           out=os.path.join(tmp, "partial.png"))
    p = res.panels[0]
    check(p.blank == 3 and "3 not done (blank)" in text,
          f"partial: blank {p.blank}, said {text!r}")
    check(all(np.isnan(p.z[i[1], i[0]]) for i in pending[:3]),
          "partial: pending points not blank")
    r = script("phase_diagram.py", part, "--quantity", "regime", "--fix",
               "b=0.1", "--out", os.path.join(tmp, "partial_regime.png"))
    check(r.returncode == 0 and "1 not done (blank)" in r.stdout,
          f"partial regime: {r.returncode} {r.stdout} {r.stderr}")
    r = script("validate.py", part)
    check(r.returncode == 0 and "4 not done (skipped)" in r.stdout,
          f"partial validate: {r.returncode}\n{r.stdout}")
    r = script("trajectory.py", part, "--at", "theta=30deg", "a=0.2", "b=0",
               "--out", os.path.join(tmp, "partial_traj.png"))
    check(r.returncode == 0 and "not done" in r.stdout,
          f"partial trajectory: {r.returncode} {r.stdout} {r.stderr}")


def test_errors(path, tmp):
    def expect2(name, args, words, what):
        r = script(name, *args)
        check(r.returncode == 2 and all(w in r.stderr for w in words),
              f"{what}: exit {r.returncode}, stderr {r.stderr!r}")

    png = os.path.join(tmp, "e.png")
    expect2("phase_diagram.py", [path, "--quantity", "nonsense", "--out",
                                 png], ["--quantity nonsense",
                                        "center_spacing"], "bad --quantity")
    expect2("phase_diagram.py", [path, "--x", "q"], ["invalid choice"],
            "bad --x")
    expect2("phase_diagram.py", [path, "--x", "theta", "--y", "theta"],
            ["both theta"], "--x = --y")
    expect2("phase_diagram.py", [path, "--out", "x.jpg"], [".jpg"],
            "bad suffix")
    expect2("phase_diagram.py", [path, "--fix", "b=abc", "--out", png],
            ["b=abc"], "bad --fix value")
    expect2("phase_diagram.py", [path, "--fix", "theta=1", "--out", png],
            ["plotted axis"], "--fix of a plotted axis")
    expect2("phase_diagram.py", [path, "--fix", "c=1", "--out", png],
            ["unknown axis"], "--fix of an unknown axis")
    expect2("phase_diagram.py", [os.path.join(tmp, "none.h5"), "--out",
                                 png], ["no such file"], "missing file")
    expect2("validate.py", [path, "--tol", "-1"], ["--tol"], "bad --tol")
    expect2("trajectory.py", [path, "--sample", "7", "--at", "b=0", "s=0",
                              "--out", png], ["--sample 7"], "bad --sample")
    for name in ("Z", "center_spacing", "done"):
        broken = os.path.join(tmp, f"no_{name}.h5")
        shutil.copy(path, broken)
        with h5py.File(broken, "r+") as f:
            del f[name]
        expect2("phase_diagram.py", [broken, "--quantity", "center_spacing",
                                     "--out", png],
                ["missing", name], f"phase without {name}")
        if name != "Z":  # validate needs no Z
            expect2("validate.py", [broken], ["missing", name],
                    f"validate without {name}")
    nos = os.path.join(tmp, "no_samples.h5")
    shutil.copy(path, nos)
    with h5py.File(nos, "r+") as f:
        del f["samples"]
    expect2("trajectory.py", [nos, "--out", png], ["samples"],
            "trajectory without samples")
    notcsv = os.path.join(tmp, "bad.csv")
    with open(notcsv, "w") as fh:
        fh.write("a,b\n1,2\n")
    expect2("trajectory.py", [notcsv, "--out", png], ["not a trajectory CSV"],
            "trajectory on a bad CSV")


CIRCULATION = """[body]
m = 1
I0 = 0.5
rho = 1
[grid]
theta = 60deg
a = 0.2
b = 0.1
r = 0.3
s = -0.1
A = 0.5
B = 0.3
Gamma = -3, -1, 1, 3
energy = logspace(0.01, 10, 7)
[ensemble]
trajectories = 8
[output]
file = {out}
"""


def test_validate_circulation(path, tmp):
    """validate.py on a (Gamma, energy) sweep: both regimes, both arcs, the
    periodic quantities compared with circulation's closed form; a period
    off by 1e-3 fails."""
    out = os.path.join(tmp, "circ.h5")
    cfg = os.path.join(tmp, "circ.ini")
    with open(cfg, "w") as fh:
        fh.write(CIRCULATION.format(out=out))
    p = subprocess.run([MPIEXEC, "--oversubscribe", "-np", "2", EXE, "run",
                        "--quiet", cfg], capture_output=True, text=True,
                       env=ENV)
    check(p.returncode == 0, f"circulation sweep: {p.stderr}")
    r = script("validate.py", out)
    check(r.returncode == 0 and "PASS" in r.stdout,
          f"validate on a circulation file: {r.returncode}\n{r.stdout}")
    rep, _ = quiet_call(validate.validate, out)
    compared = {c.analytic_name: len(c.where) for c in rep.comparisons}
    for name in ("analytic_period", "analytic_heading_per_period",
                 "analytic_transition_angle_lower",
                 "analytic_radius_future"):
        check(compared.get(name, 0) > 0,
              f"validate: no {name} compared ({compared})")
    bad = os.path.join(tmp, "circ_bad.h5")
    shutil.copy(out, bad)
    with h5py.File(bad, "r+") as f:
        f["period"][...] = f["period"][()] * (1 + 1e-3)
    r = script("validate.py", bad)
    check(r.returncode == 1 and "FAIL" in r.stdout,
          f"validate, period off by 1e-3: {r.returncode}\n{r.stdout}")
    rep, _ = quiet_call(validate.validate, bad)
    above = {c.measured_name: c.above for c in rep.comparisons}
    check(above.get("period", 0) > 0 and above.get("transition_angle") == 0,
          f"validate, period off by 1e-3: values above tol {above}")


with tempfile.TemporaryDirectory() as tmp:
    sweep = run_sweep(tmp)
    for test in (test_phase, test_trajectory, test_validate, test_partial,
                 test_errors, test_validate_circulation):
        try:
            test(sweep, tmp)
        except Exception as e:  # a crash is a failure with its message
            import traceback
            traceback.print_exc()
            check(False, f"{test.__name__} raised {e!r}")

if failures:
    print(f"{len(failures)} check(s) failed", file=sys.stderr)
    sys.exit(1)
print("analysis: all checks passed")
