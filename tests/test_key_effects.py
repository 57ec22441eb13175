#!/usr/bin/python3
"""Every config key has the effect its documentation promises (a
sweep's [integrator] rtol was ignored). test_key_effects (C) declares one
or more cases per key of the key table, fails when a key has none, and
writes the cases; this runs a tiny sweep for the base config and for each
case, and checks the declared effect on the output (datasets that differ
or stay the same bytes, attributes) and that a resume of the base's output
with the case's config is refused naming the key (exit 2) or accepted, as
declared. Last, a file whose rtol attribute disagrees with its config text
(written by a build with the bug) is refused on resume.

Usage: test_key_effects.py TEST_KEY_EFFECTS SLEIGHSWEEP [mpiexec]
"""
import math
import os
import shutil
import subprocess
import sys
import tempfile

import h5py
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sswtest import ENV, check, differing, exit_status  # noqa: E402

CASES, EXE = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
MPIEXEC = sys.argv[3] if len(sys.argv) > 3 else "mpirun"
# One rank, so no other rank to give time to when it exits 2 (Open MPI
# otherwise takes 2 s more to end each refused run).
RUN_ENV = dict(ENV, OMPI_MCA_odls_base_sigkill_timeout="0")


def run(cfg, *opts):
    return subprocess.run([MPIEXEC, "--oversubscribe", "-np", "1", EXE,
                           "run", "--quiet", *opts, cfg], env=RUN_ENV,
                          capture_output=True, text=True, timeout=120)


def said(p):
    """What sleighsweep said (not mpirun's own lines)."""
    return " ".join(line for line in p.stderr.splitlines()
                    if line.startswith("sleighsweep"))[-600:]


def attr(path, name, where="/"):
    """An attribute as a float or a str (None when absent)."""
    with h5py.File(path, "r") as f:
        v = f[where].attrs.get(name)
    if isinstance(v, bytes):
        return v.decode()
    return None if v is None else v.item() if hasattr(v, "item") else v


def same_value(got, want):
    try:
        return math.isclose(float(got), float(want), rel_tol=1e-15)
    except (TypeError, ValueError):
        return str(got) == want


def values(path, name):
    with h5py.File(path, "r") as f:
        return np.asarray(f[name][()], dtype=float).ravel()


def check_one(token, base, out, named):
    """One declared check of `out` against `base`; returns the message of a
    failure or None. Datasets it names go into `named`."""
    if token.endswith("/"):
        diff = differing(base, out)
        return None if any(k.startswith(token) for k in diff) else \
            f"nothing in {token} changed"
    if token.startswith("@"):
        name, _, want = token[1:].partition("=")
        got, was = attr(out, name), attr(base, name)
        if want:
            return None if same_value(got, want) else \
                f"attribute {name} is {got}, declared {want}"
        return None if got != was else f"attribute {name} unchanged ({got})"
    if "@" in token:
        ds, name = token.split("@")
        named.add(ds)
        got, was = attr(out, name, ds), attr(base, name, ds)
        return None if got != was else f"{ds} {name} unchanged ({got})"
    ds = token.rstrip("<>").split("=")[0]
    named.add(ds)
    a, b = values(base, ds), values(out, ds)
    if token.endswith("=nan"):
        return None if np.all(np.isnan(b)) else f"{ds} not NaN: {b}"
    if token[-1] in "<>":
        ok = np.isfinite(a) & np.isfinite(b)
        less = token[-1] == "<"
        held = np.any(ok) and np.all(b[ok] < a[ok] if less else b[ok] > a[ok])
        return None if held else f"{ds} not {token[-1]} the base's: {b} " \
            f"vs {a}"
    same = a.tobytes() == b.tobytes()
    return f"{ds} unchanged: {b}" if same else None


def check_case(tmp, base, case):
    ini, section, key, value, resume, names, checks, effect = case
    what = f"[{section}] {key} = {value} ({effect})"
    checks = checks.split()
    at = [c[3:] for c in checks if c.startswith("at=")]
    out = os.path.join(tmp, at[0] if at else ini[:-4] + ".h5")
    p = run(os.path.join(tmp, ini))
    ran = p.returncode == 0 and os.path.exists(out)
    check(ran, f"{what}: exit {p.returncode}, {out}: {said(p)}")
    if not ran:
        return
    if at:
        check(not os.path.exists(os.path.join(tmp, ini[:-4] + ".h5")),
              f"{what}: the default output was written too")
    named = set()
    for token in checks:
        if token == "only" or token.startswith("at="):
            continue
        msg = check_one(token, base, out, named)
        check(msg is None, f"{what}: {msg}")
    if "only" in checks:
        groups = tuple(t for t in checks if t.endswith("/"))
        diff = [k for k in differing(base, out)
                if k not in named and not k.startswith(groups)]
        check(not diff, f"{what}: datasets changed: {diff}")
    # A resume of the base's output with this config.
    copy = os.path.join(tmp, "resume.h5")
    shutil.copy(base, copy)
    p = run(os.path.join(tmp, ini), "--output", copy)
    if resume == "refused":
        check(p.returncode == 2 and f"{names}: " in p.stderr,
              f"{what}: resume not refused naming the key: exit "
              f"{p.returncode}: {said(p)}")
    else:
        check(p.returncode == 0 and ("already complete" in p.stderr or
                                     "(0 computed now" in p.stderr),
              f"{what}: resume not accepted: exit {p.returncode}: "
              f"{said(p)}")
    os.remove(copy)
    print(f"{ini}: {what}: checked {' '.join(checks)}")


def old_rtol_file(tmp, cases):
    """A file whose points were computed at another rtol than its config
    text says (builds before the fix ignored [integrator] rtol), opened
    again with that config (a comment added, so that it is not taken as
    complete without opening it): refused naming rtol."""
    ini = next(c[0] for c in cases if c[2] == "rtol" and c[3] == "1e-6")
    out = os.path.join(tmp, "old.h5")
    shutil.copy(os.path.join(tmp, ini[:-4] + ".h5"), out)
    with h5py.File(out, "r+") as f:
        f.attrs.modify("rtol", 1e-10)
    cfg = os.path.join(tmp, "old.ini")
    with open(os.path.join(tmp, ini)) as f:
        text = f.read()
    with open(cfg, "w") as f:
        f.write("; resumed\n" + text)
    p = run(cfg, "--output", out)
    check(p.returncode == 2 and "[integrator] rtol: 1e-10 in the file" in
          p.stderr, f"file of rtol 1e-10 resumed at 1e-6: exit "
          f"{p.returncode}: {said(p)}")


with tempfile.TemporaryDirectory() as tmp:
    p = subprocess.run([CASES, "--write", tmp], capture_output=True,
                       text=True)
    check(p.returncode == 0, f"test_key_effects --write: exit {p.returncode}:"
          f" {p.stderr}")
    if os.path.exists(os.path.join(tmp, "effects.tsv")):
        base = os.path.join(tmp, "base.h5")
        p = run(os.path.join(tmp, "base.ini"))
        check(p.returncode == 0, f"base: exit {p.returncode}: {said(p)}")
        with open(os.path.join(tmp, "effects.tsv")) as f:
            cases = [line.rstrip("\n").split("\t") for line in f]
        for case in cases if p.returncode == 0 else []:
            check_case(tmp, base, case)
        if p.returncode == 0:
            old_rtol_file(tmp, cases)

sys.exit(exit_status())
