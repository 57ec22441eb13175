#!/usr/bin/python3
"""analysis/figures.sh end to end in a temporary directory: every gallery
figure is written (PDF and PNG, non-empty, PNG at 300 dpi), index.md has a
caption for each, and the data behind the energy, trajectory and phase
figures equal the files they were drawn from.

Usage: test_gallery.py SLEIGHSWEEP [MPIEXEC]
"""
import os
import struct
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
sys.path.insert(0, os.path.join(ROOT, "analysis"))

import h5py  # noqa: E402
import numpy as np  # noqa: E402

import gallery  # noqa: E402

EXE = sys.argv[1]
MPIEXEC = sys.argv[2] if len(sys.argv) > 2 else "mpirun"
FIGURES = ("xz2025_fig2_energy", "xz2025_fig5_com", "xz2025_fig6_theta",
           "xz2025_fig7_com", "xz2025_fig8_classical", "xz2025_fig10_models",
           "fgn2010_fig2a_portrait", "fgn2010_fig2b_sleigh",
           "fgn2010_fig3_loops", "phase_sense", "phase_spacing",
           "phase_loops", "validate_rho1")
failures = []


def check(cond, msg):
    if not cond:
        failures.append(msg)
        print("FAILED:", msg, file=sys.stderr)
    return cond


def png_size(path):
    with open(path, "rb") as fh:
        head = fh.read(24)
    return struct.unpack(">II", head[16:24]) if head[:8] == \
        b"\x89PNG\r\n\x1a\n" else None


with tempfile.TemporaryDirectory() as tmp:
    out = os.path.join(tmp, "gallery")
    env = dict(os.environ, SSW_EXE=EXE, MPIEXEC=MPIEXEC,
               PYTHON=sys.executable)
    t0 = time.time()
    p = subprocess.run(["sh", os.path.join(ROOT, "analysis", "figures.sh"),
                        out], capture_output=True, text=True, env=env)
    print(f"figures.sh: {time.time() - t0:.1f} s; {p.stdout.strip()}")
    if not check(p.returncode == 0, f"figures.sh exit {p.returncode}:\n"
                 f"{p.stdout}\n{p.stderr}"):
        sys.exit(1)
    index = open(os.path.join(out, "index.md")).read()
    for name in FIGURES:
        for ext in ("pdf", "png"):
            f = os.path.join(out, f"{name}.{ext}")
            check(os.path.exists(f) and os.path.getsize(f) > 2000,
                  f"{f} missing or empty")
        with open(os.path.join(out, f"{name}.pdf"), "rb") as fh:
            check(fh.read(5) == b"%PDF-", f"{name}.pdf is not a PDF")
        size = png_size(os.path.join(out, f"{name}.png"))
        check(size and size[0] in (1020, 2100), f"{name}.png is {size}: "
              "not 3.4 in or 7 in wide at 300 dpi")
        check(f"({name}.png)" in index, f"index.md lacks {name}")
    check(index.count("## ") == len(FIGURES), "index.md: one section per "
          "figure expected")
    check("rho = 1" in index and "omega0 = 1.5" in index,
          "index.md captions do not state the parameters")

    # the data behind some figures, against the files
    data = os.path.join(out, "data")
    g = gallery.Gallery(data, os.path.join(tmp, "again"), ["png"])
    os.makedirs(g.out)
    energy = gallery.fig_energy(g)
    for name in ("xz2_hamel2", "xz2_rk4"):
        csv = np.genfromtxt(os.path.join(data, name + ".csv"),
                            delimiter=",", names=True)
        H0 = csv["H"][np.argmin(np.abs(csv["t"]))]
        check(np.array_equal(energy[name]["t"], csv["t"]) and
              np.array_equal(energy[name]["err"],
                             np.abs(csv["H"] - H0) / H0),
              f"energy figure data differ from {name}.csv")
    check(energy["xz2_hamel2"]["err"].max() < 1e-13 <
          energy["xz2_rk4"]["err"].max(),
          "Fig. 2: the Hamel step should conserve energy to round-off and "
          "RK4 not")
    plots = gallery.fig_com(g)
    tr = plots[1].trajectories[0]
    csv = np.genfromtxt(os.path.join(data, "xz5_b01.csv"), delimiter=",",
                        names=True)
    check(np.array_equal(tr.x, csv["x"]) and np.array_equal(tr.y, csv["y"]),
          "Fig. 5b data differ from xz5_b01.csv")
    phase = gallery.fig_phase(g)
    with h5py.File(os.path.join(data, gallery.SWEEP1), "r") as f:
        want = f["sense_future"][:, :, 0, 0, 0, 0, 0].T.astype(float)
        check(np.array_equal(phase["sense"].panels[0].z, want),
              "phase_sense data differ from the sweep file")
        want = f["center_spacing"][:, :, 0, 0, 0, 0, 0].T
        got = phase["spacing"].panels[0].z
        check(np.array_equal(np.isnan(got), np.isnan(want)) and
              np.array_equal(got[~np.isnan(got)], want[~np.isnan(want)]),
              "phase_spacing data differ from the sweep file")
    check(len(phase["loops"].panels) == 2 and
          phase["loops"].panels[0].boundaries["Z=0"] == "everywhere",
          "phase_loops: expected rho = 0 (Z = 0 everywhere) beside rho = 1")

if failures:
    print(f"{len(failures)} check(s) failed", file=sys.stderr)
    sys.exit(1)
print("gallery: all checks passed")
