#!/usr/bin/python3
"""`sleighsweep point`: JSON against the closed form, CSV, bad input -> 2."""
import csv
import json
import math
import os
import subprocess
import sys
import tempfile

EXE = sys.argv[1]
failures = []


def check(cond, msg):
    if not cond:
        failures.append(msg)
        print("FAILED:", msg, file=sys.stderr)


def point(*args):
    return subprocess.run([EXE, "point", *args], capture_output=True,
                          text=True)


def rel(x, ref):
    return abs(x - ref) / abs(ref)


# Seed case (defaults): r and d within 1e-8 of the closed form.
p = point()
check(p.returncode == 0, f"seed case exit {p.returncode}: {p.stderr}")
j = json.loads(p.stdout)
an = j["analytic"]
for key in ("regime", "r_past", "r_future", "d", "dphi", "loops",
            "sense_future", "energy_error", "steps", "converged"):
    check(key in j, f"key {key} missing")
for key in ("regime", "r_past", "r_future", "d", "dphi", "loops",
            "sense_future"):
    check(key in an, f"analytic key {key} missing")
check(j["converged"] is True, "seed case not converged")
check(j["regime"] == an["regime"] == "circle_to_circle", "seed regime")
for key in ("r_past", "r_future", "d", "dphi"):
    check(rel(j[key], an[key]) <= 1e-8,
          f"seed {key}: {j[key]!r} vs {an[key]!r}")
check(j["loops"] == an["loops"] and j["sense_future"] == an["sense_future"],
      "seed loops/sense")
check(j["sense_future"] == -1, "seed case must end clockwise")

# b = 0.1 and the classical sleigh through the options.
j = json.loads(point("--b", "0.1").stdout)
check(rel(j["d"], j["analytic"]["d"]) <= 1e-8, f"b=0.1 d {j['d']}")
j = json.loads(point("--rho", "0", "--a", "0.15").stdout)
check(j["regime"] == "line_to_line", "classical regime")
check(j["r_future"] is None and j["d"] is None, "classical: null radius/d")
check(abs(abs(j["dphi"]) / math.pi - 4.819) < 5e-4, f"classical {j['dphi']}")
check(j["loops"] == 2, f"classical loops {j['loops']}")
j = json.loads(point("--theta", "90deg").stdout)
check(j["regime"] == "line_to_line", "theta = 90deg must snap Z to 0")

# Every scheme runs and converges; RK4 and Hamel agree on d.
for scheme in ("hamel2", "hamel4", "hamel4s", "hamel6", "hamel8", "rk4"):
    j = json.loads(point("--scheme", scheme, "--eta", "0.2").stdout)
    check(j["converged"] and rel(j["d"], j["analytic"]["d"]) < 1e-3,
          f"{scheme}: d {j['d']}")
    check(j["integrator"]["scheme"] == scheme, f"{scheme} not echoed")

# The trajectory CSV: sorted in time, through the initial state, energy
# constant (the node energy is an exact invariant of the Hamel scheme).
with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "traj.csv")
    p = point("--trajectory", path)
    check(p.returncode == 0, "trajectory run failed")
    with open(path) as f:
        rows = list(csv.DictReader(f))
    check(list(rows[0].keys()) == ["t", "phi", "x", "y", "omega", "v", "H",
                                   "phi_exact", "x_exact", "y_exact",
                                   "omega_exact", "v_exact"],
          f"CSV header {list(rows[0].keys())}")
    # The exact path beside every node, and the JSON's largest distance
    # from it: at the default rtol the path is good to 10 rtol of its size.
    dist = max(math.hypot(float(r["x"]) - float(r["x_exact"]),
                          float(r["y"]) - float(r["y_exact"])) for r in rows)
    size = max(math.hypot(float(r["x_exact"]), float(r["y_exact"]))
               for r in rows)
    j = json.loads(p.stdout)
    check(abs(dist - j["path_error_max"]) <= 1e-15 * size and
          dist <= 1e-9 * max(size, 1.0),
          f"path error {dist:.3g} (JSON {j['path_error_max']}), size {size}")
    check(j["heading_error_max"] <= 1e-9, "heading error")
    dw = max(abs(float(r["omega"]) - float(r["omega_exact"])) for r in rows)
    check(dw <= 1e-9 * 1.5, f"omega against the exact motion: {dw:.3g}")
    # Blade force: measured max |F|/H against its closed form; the error
    # estimates are finite where the quantities exist.
    bf, bfa = j["blade_force_max"], j["analytic"]["blade_force_max"]
    check(abs(bf - bfa) <= 1e-9 * bfa, f"blade force {bf} vs {bfa}")
    est = j["error_estimate"]
    check(all(isinstance(est[k], float) for k in ("d", "dphi", "r", "t0")),
          f"error estimates {est}")
    check(abs(j["d"] - j["analytic"]["d"]) <= est["d"],
          f"d error {abs(j['d'] - j['analytic']['d'])} above its estimate")
    check(j["integrator"]["step_control"] == "adaptive" and
          j["integrator"]["rtol"] == 1e-10, "integrator settings")
    t = [float(r["t"]) for r in rows]
    check(all(a < b for a, b in zip(t, t[1:])), "CSV not sorted by time")
    zero = [r for r in rows if float(r["t"]) == 0.0]
    check(len(zero) == 1 and float(zero[0]["omega"]) == 1.5, "no t=0 row")
    H = [float(r["H"]) for r in rows]
    check(max(abs(h - H[0]) for h in H) <= 1e-13 * H[0], "H not constant")
    check(len(rows) > 100, f"only {len(rows)} rows")

# Bad input: exit status 2, one line naming the option, nothing on stdout.
bad = [
    (["--rtol", "1e-15"], "--rtol"),
    (["--rtol", "0.5"], "--rtol"),
    (["--rtol", "nan"], "--rtol"),
    (["--rtol", "1e-8", "--eta", "0.5"], "--rtol and --eta"),
    (["--scheme", "rattle", "--rho", "0", "--I0", "0"], "rattle"),
    (["--eta", "abc"], "--eta"),
    (["--eta", "5"], "eta"),
    (["--A", "0.2"], "A > B"),
    (["--m", "-1"], "mass m"),
    (["--rho", "nan"], "--rho"),
    (["--scheme", "euler"], "--scheme"),
    (["--reconstruction", "spline"], "--reconstruction"),
    (["--max-steps", "10"], "--max-steps"),
    (["--bogus"], "--bogus"),
    (["--theta"], "--theta"),
    (["--omega0", "0", "--v0", "0"], "initial velocity"),
    (["--trajectory", "/nonexistent/dir/x.csv"], "--trajectory"),
    (["extra"], "extra"),
    (["--zero-tol", "1"], "--zero-tol"),
]
for args, word in bad:
    p = point(*args)
    lines = p.stderr.strip().splitlines()
    check(p.returncode == 2, f"{args}: exit {p.returncode}, expected 2")
    check(len(lines) == 1 and word in lines[0],
          f"{args}: message {p.stderr!r} should name {word!r}")
    check(p.stdout == "", f"{args}: printed {p.stdout!r}")

p = subprocess.run([EXE, "point", "--help"], capture_output=True, text=True)
for opt in ("--theta", "--a", "--b", "--r", "--s", "--A", "--B", "--m",
            "--I0", "--rho", "--omega0", "--v0", "--scheme", "--eta",
            "--trajectory", "--reconstruction", "--added-inertia"):
    check(opt in p.stdout, f"point --help misses {opt}")

# Drag (docs/theory/drag.md): C = c K gives the exact rest (the undamped
# path up to tau = 1/c); b = 0.1 makes L2 != 0, so drag_wv = -c L2 enters.
t = json.loads(point("--b", "0.1").stdout)["tensor"]
c = 0.3
with tempfile.TemporaryDirectory() as tmp:
    traj = os.path.join(tmp, "damped.csv")
    p = point("--b", "0.1", "--drag-w", repr(c * t["J"]), "--drag-v",
              repr(c * t["M"]), "--drag-wv", repr(-c * t["L2"]),
              "--trajectory", traj)
    check(p.returncode == 0, f"damped exit {p.returncode}: {p.stderr}")
    j = json.loads(p.stdout)
    with open(traj) as f:
        rows = list(csv.DictReader(f))
    fell = float(rows[-1]["H"]) < 1e-12 * float(rows[0]["H"])
    check(len(rows) > 10 and fell,
          "damped trajectory CSV: the energy does not fall to rest")
an, est = j["analytic"], j["error_estimate"]
for key in ("heading_total", "rest_x", "rest_y", "rest_distance",
            "path_length", "approach", "decay_rate", "loops", "t_settle"):
    check(key in j, f"damped key {key} missing")
for key in ("heading_total", "rest_x", "rest_y", "rest_distance",
            "path_length", "decay_rate"):
    check(isinstance(est.get(key), float), f"damped error_estimate {key}")
check(j["converged"] is True and j["approach"] == "node", "damped C = c K")
check(len(an["eigenvalues"]) == 2 and
      all(abs(e["re"] + c) <= 1e-12 * c and e["im"] == 0
          for e in an["eigenvalues"]), f"eigenvalues {an['eigenvalues']}")
check(rel(j["decay_rate"], c) <= 1e-9, f"decay_rate {j['decay_rate']}")
scale = max(abs(an["heading_total"]), 1.0)
check(abs(j["heading_total"] - an["heading_total"]) <= 1e-9 * scale,
      f"heading_total {j['heading_total']} vs {an['heading_total']}")
for key in ("rest_x", "rest_y", "path_length"):
    check(abs(j[key] - an[key]) <= 1e-9 * an["path_length"],
          f"damped {key} {j[key]} vs {an[key]}")
# With circulation the approach is a focus, and C = c K has no exact twin.
j = json.loads(point("--r", "0.3", "--Gamma", "2", "--drag-w", "0.05",
                     "--drag-v", "0.05").stdout)
check(j["approach"] == j["analytic"]["approach"] == "focus",
      f"focus: {j['approach']}")
check(rel(j["decay_rate"], j["analytic"]["decay_rate"]) <= 1e-9,
      f"focus decay {j['decay_rate']} vs {j['analytic']['decay_rate']}")
check(j["analytic"]["heading_total"] is None, "focus: no exact twin")
# Bad drag: negative, not positive semidefinite, with rattle.
for args, word in ((("--drag-v", "-1"), "drag-v"),
                   (("--drag-w", "0.1", "--drag-v", "0.1", "--drag-wv",
                     "0.2"), "positive semidefinite"),
                   (("--scheme", "rattle", "--drag-v", "0.1"), "drag")):
    p = point(*args)
    check(p.returncode == 2 and word in p.stderr,
          f"point {' '.join(args)}: exit {p.returncode}: {p.stderr}")

p = subprocess.run([EXE, "frobnicate"], capture_output=True, text=True)
check(p.returncode == 2 and "frobnicate" in p.stderr, "unknown command")
sys.exit(1 if failures else 0)
