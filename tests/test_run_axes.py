"""Gamma and energy as grid axes (docs/config.md, "[grid]"): a sweep over
(Gamma, energy) holds, at every point, exactly the numbers of the run that
fixes that Gamma and energy with the scalar keys ([body] Gamma, [ensemble]
energy), bit for bit (the identity: the axes only choose the values). The
swept file has the dimensions theta a b r s A B Gamma energy, their
coordinate datasets and no root attributes of those names; the
single-valued files keep the seven dimensions and the attributes. The
same for the drag matrix's entries swept with circulation. The
samples' coordinates include the swept axes. Usage: test_run_axes.py
SLEIGHSWEEP MPIEXEC"""
import os
import subprocess
import sys
import tempfile

import h5py
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sswtest import ENV, check, exit_status  # noqa: E402

EXE, MPIEXEC = sys.argv[1], sys.argv[2]
GAMMAS = (-1.5, 0.0, 2.0)
ENERGIES = (0.05, 0.5, 5.0)
BODY = """[body]
m = 1
I0 = 0.5
rho = 1
{gamma}[grid]
theta = 40deg, 110deg
a = 0.2
r = -0.3, 0.2
s = 0.1
A = 0.5
B = 0.3
{axes}[ensemble]
trajectories = 6
{energy}[output]
file = {out}
samples = 1
sample_nodes = 8
"""


def run(tmp, name, ranks, **parts):
    cfg = os.path.join(tmp, name + ".ini")
    out = os.path.join(tmp, name + ".h5")
    with open(cfg, "w") as f:
        f.write(BODY.format(out=out, gamma=parts.get("gamma", ""),
                            axes=parts.get("axes", ""),
                            energy=parts.get("energy", "")))
    p = subprocess.run([MPIEXEC, "-np", str(ranks), EXE, "run", "--quiet",
                        cfg], env=ENV, text=True, capture_output=True,
                       timeout=300)
    check(p.returncode == 0, f"{name}: exit {p.returncode}: {p.stderr}")
    return out


def per_point(f):
    """The per-point datasets (over the grid) of an open file."""
    shape = f["done"].shape
    return {k: f[k][()] for k in f
            if isinstance(f[k], h5py.Dataset) and f[k].shape == shape}


with tempfile.TemporaryDirectory() as tmp:
    swept = run(tmp, "swept", 2, axes="Gamma = {}\nenergy = {}\n".format(
        ", ".join(map(str, GAMMAS)), ", ".join(map(str, ENERGIES))))
    with h5py.File(swept, "r") as f:
        dims = [d[0].name.lstrip("/") for d in f["regime"].dims]
        check(dims == ["theta", "a", "b", "r", "s", "A", "B", "Gamma",
                       "energy"], f"swept file's dimensions {dims}")
        check(list(f["Gamma"][()]) == list(GAMMAS)
              and list(f["energy"][()]) == list(ENERGIES),
              "coordinate values")
        check("Gamma" not in f.attrs and "energy" not in f.attrs,
              "a swept axis is no root attribute")
        check(f["energy"].attrs["units"] == b"mass length2 time-2"
              or f["energy"].attrs["units"] == "mass length2 time-2",
              f"energy units {f['energy'].attrs['units']!r}")
        big = per_point(f)
        coords = f["samples/t"].attrs["coordinates"]
        coords = coords.decode() if isinstance(coords, bytes) else coords
        check(coords.split()[-2:] == ["Gamma", "energy"],
              f"sample coordinates {coords}")
        # The samples' Gamma and energy along `point`: those of the flat
        # index (row-major, energy fastest).
        pts = f["samples/point"][()]
        nE, nG = len(ENERGIES), len(GAMMAS)
        check(np.array_equal(f["samples/energy"][()],
                             np.array(ENERGIES)[pts % nE]) and
              np.array_equal(f["samples/Gamma"][()],
                             np.array(GAMMAS)[(pts // nE) % nG]),
              "sample coordinates Gamma, energy")
        check(len(pts) == big["done"].size, f"{len(pts)} sample points")
    compared = 0
    for i, g in enumerate(GAMMAS):
        for j, h in enumerate(ENERGIES):
            one = run(tmp, f"one_{i}_{j}", 1, gamma=f"Gamma = {g}\n",
                      energy=f"energy = {h}\n")
            with h5py.File(one, "r") as f:
                check(f["regime"].ndim == 7 and "Gamma" not in f
                      and "energy" not in f,
                      "a single-valued run keeps the seven dimensions")
                check(f.attrs["Gamma"] == g and f.attrs["energy"] == h,
                      f"attributes {f.attrs['Gamma']} {f.attrs['energy']}")
                small = per_point(f)
            check(set(small) == set(big), f"datasets differ: "
                  f"{sorted(set(small) ^ set(big))}")
            for k in small:
                a, b = small[k], big[k][..., i, j]
                if a.tobytes() != b.tobytes():
                    check(False, f"Gamma {g} energy {h}: {k} differs from "
                          "the single-valued run")
                compared += 1
    regimes = set(np.unique(big["regime"]).tolist())
    print(f"run axes: {compared} datasets of {len(GAMMAS) * len(ENERGIES)} "
          f"single-valued runs bit-identical to the swept file's slices; "
          f"regimes present {sorted(regimes)}")
    # The grid must reach both sides of the critical energy (periodic = 4).
    check(4 in regimes and len(regimes) >= 2, f"regimes {regimes}")

    # Drag's three entries as axes (with circulation): every point the
    # run that fixes them under [body]; the worst |drag_wv| against the
    # smallest drag_w and drag_v keeps C positive semidefinite.
    DW, DV, DWV = (0.02, 0.1), (0.05, 0.3), (-0.02, 0.01)
    swept = run(tmp, "drag_swept", 2, gamma="Gamma = 1\n",
                axes="drag_w = {}\ndrag_v = {}\ndrag_wv = {}\n".format(
                    *(", ".join(map(str, a)) for a in (DW, DV, DWV))))
    with h5py.File(swept, "r") as f:
        dims = [d[0].name.lstrip("/") for d in f["regime"].dims]
        check(dims[7:] == ["drag_w", "drag_v", "drag_wv"],
              f"drag sweep's dimensions {dims}")
        check(all(n not in f.attrs for n in ("drag_w", "drag_v", "drag_wv"))
              and f.attrs["Gamma"] == 1, "drag sweep's root attributes")
        big = per_point(f)
    compared = 0
    for i, w in enumerate(DW):
        for j, v in enumerate(DV):
            for k, wv in enumerate(DWV):
                one = run(tmp, f"drag_{i}{j}{k}", 1,
                          gamma=f"Gamma = 1\ndrag_w = {w}\ndrag_v = {v}\n"
                          f"drag_wv = {wv}\n")
                with h5py.File(one, "r") as f:
                    small = per_point(f)
                for name in small:
                    same = (small[name].tobytes() ==
                            big[name][..., i, j, k].tobytes())
                    check(same, f"drag ({w}, {v}, {wv}): {name} differs "
                          "from the single-valued run")
                    compared += 1
    rest = big["rest_distance"]
    check(np.all(np.isfinite(rest)) and np.unique(rest).size > 4,
          f"damped points reach rest: {np.unique(rest).size} distances")
    print(f"run axes: {compared} datasets of 8 drag runs bit-identical to "
          "the drag sweep's slices")
sys.exit(exit_status())
