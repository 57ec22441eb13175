#!/usr/bin/python3
"""Drag's paths in trajectory.py (docs/theory/drag.md): a damped point's
CSV and JSON are drawn without limit circles, with the rest point marked
at the JSON's rest_x, rest_y, which the path's last node approaches
(within 1e-9 of the path length: the stop leaves 1e-11 of the motion);
with circulation the approach is a focus and the stored path spirals in
(v changes sign again and again); a sweep's damped sample ends at its
rest. Usage: test_drag_figures.py SLEIGHSWEEP [MPIEXEC]"""
import json
import math
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))
sys.path.insert(0, os.path.join(HERE, ".."))

import numpy as np  # noqa: E402
from matplotlib.patches import Circle  # noqa: E402

from sleighsweep import trajectory  # noqa: E402
from sswtest import ENV, check, exit_status  # noqa: E402

EXE = sys.argv[1]
MPIEXEC = sys.argv[2] if len(sys.argv) > 2 else "mpirun"
CASES = (("node", ["--drag-w", "0.05", "--drag-v", "0.1"]),
         ("focus", ["--r", "0.3", "--Gamma", "2", "--drag-w", "0.05",
                    "--drag-v", "0.05"]))
CONFIG = """[body]
m = 1
I0 = 0.5
rho = 1
drag_w = 0.05
drag_v = 0.1
[grid]
theta = 60deg
a = 0.2
A = 0.5
B = 0.3
[ensemble]
trajectories = 2
[output]
file = {out}
samples = 1
"""

with tempfile.TemporaryDirectory() as tmp:
    for name, args in CASES:
        csv, js = (os.path.join(tmp, name + e) for e in (".csv", ".json"))
        p = subprocess.run([EXE, "point", *args, "--trajectory", csv],
                           capture_output=True, text=True, env=ENV)
        check(p.returncode == 0, f"{name}: point: {p.stderr}")
        with open(js, "w") as f:
            f.write(p.stdout)
        j = json.loads(p.stdout)
        check(j["approach"] == name, f"{name}: approach {j['approach']}")
        tr = trajectory.load_csv(csv)
        res = trajectory.plot_trajectories(
            [tr], out=os.path.join(tmp, name + ".png"))
        check(tr.radius is None and not any(
            isinstance(a, Circle) for a in res.ax.patches),
            f"{name}: a damped path has no limit circles")
        check(np.allclose(tr.rest, [j["rest_x"], j["rest_y"]], rtol=0,
                          atol=0), f"{name}: rest point {tr.rest}")
        gap = math.hypot(tr.x[-1] - j["rest_x"], tr.y[-1] - j["rest_y"])
        check(gap <= 1e-9 * j["path_length"],
              f"{name}: the path ends {gap:.3g} from its rest point")
        marks = [ln for ln in res.ax.lines if ln.get_marker() == "X"]
        check(len(marks) == 1 and np.allclose(
            np.ravel(marks[0].get_data()), tr.rest),
            f"{name}: one rest mark at the rest point")
        check(any(h.get_label() == "rest" for h in res.handles),
              f"{name}: legend entry 'rest'")
        turns = int(np.sum(np.diff(np.sign(tr.v)) != 0))
        check(turns >= 4 if name == "focus" else turns <= 2,
              f"{name}: v changes sign {turns} times")
    ini, out = os.path.join(tmp, "d.ini"), os.path.join(tmp, "d.h5")
    with open(ini, "w") as f:
        f.write(CONFIG.format(out=out))
    p = subprocess.run([MPIEXEC, "-np", "1", EXE, "run", "--quiet", ini],
                       capture_output=True, text=True, env=ENV, timeout=300)
    check(p.returncode == 0, f"sweep: {p.stderr}")
    trs, blank = trajectory.load_samples(out)
    check(len(trs) == 1 and blank == 0, f"{len(trs)} samples")
    for tr in trs:
        check(tr.rest is not None and
              np.allclose(tr.rest, [tr.x[-1], tr.y[-1]]),
              "a damped sample's rest is its last node")
        res = trajectory.plot_trajectories(
            [tr], out=os.path.join(tmp, "sample.png"))
        check(tr.radius is None, "a damped sample has no limit circles")
print("drag figures: node and focus paths to rest, a sweep sample")
sys.exit(exit_status())
