#!/usr/bin/env python3
"""Compares two reference sets of scripts/refset.sh byte for byte, ignoring
only version and provenance fields. Exit 1 and a list of the differences
when any other byte differs."""
import json
import os
import re
import sys

import h5py
import numpy as np

# Root attributes that say who, when and where, not what was computed.
PROVENANCE = {"version", "git_revision", "hostname", "command_line",
              "start_time", "end_time", "wall_time_s", "history",
              "config_path", "hdf5_version", "mpi_library_version"}
# Datasets of /segments holding the wall clock of run segments.
TIMED = {"/segments/start_time", "/segments/end_time",
         "/segments/wall_time_s"}


def plain(f, x):
    """An attribute or dataset value with object references (dimension
    scales) replaced by the names they point to."""
    x = np.asarray(x)
    if x.dtype.kind == "O" or (x.dtype.names and any(
            x.dtype[n].kind == "O" for n in x.dtype.names)):
        return repr([[f[r].name if isinstance(r, h5py.Reference) else r
                      for r in (row if hasattr(row, "__iter__") else [row])]
                     for row in x.tolist()]).encode()
    return x


def same_array(a, b):
    a, b = np.asarray(a), np.asarray(b)
    return a.shape == b.shape and a.dtype == b.dtype and \
        a.tobytes() == b.tobytes()


def compare_h5(pa, pb, diffs):
    with h5py.File(pa, "r") as fa, h5py.File(pb, "r") as fb:
        def attrs(name, oa, ob):
            ka, kb = set(oa.attrs), set(ob.attrs)
            if ka != kb:
                diffs.append(f"{pa}:{name}: attributes {ka ^ kb}")
            for k in ka & kb:
                if name == "/" and k in PROVENANCE:
                    continue
                if not same_array(plain(fa, oa.attrs[k]),
                                  plain(fb, ob.attrs[k])):
                    diffs.append(f"{pa}:{name}@{k}: {oa.attrs[k]!r} != "
                                 f"{ob.attrs[k]!r}")
        names_a, names_b = [], []
        fa.visit(names_a.append)
        fb.visit(names_b.append)
        if set(names_a) != set(names_b):
            diffs.append(f"{pa}: objects {set(names_a) ^ set(names_b)}")
        attrs("/", fa, fb)
        for n in sorted(set(names_a) & set(names_b)):
            oa, ob = fa[n], fb[n]
            attrs("/" + n, oa, ob)
            if isinstance(oa, h5py.Dataset) and "/" + n not in TIMED:
                if not same_array(plain(fa, oa[()]), plain(fb, ob[()])):
                    diffs.append(f"{pa}:/{n}: data differ")


def strip_json(text):
    try:
        obj = json.loads(text)
    except ValueError:
        return text
    obj.pop("version", None)
    obj.pop("git_revision", None)
    return json.dumps(obj, sort_keys=True)


def main(a, b):
    diffs = []
    fa, fb = sorted(os.listdir(a)), sorted(os.listdir(b))
    if fa != fb:
        diffs.append(f"file lists differ: {set(fa) ^ set(fb)}")
    n = 0
    for f in sorted(set(fa) & set(fb)):
        pa, pb = os.path.join(a, f), os.path.join(b, f)
        if os.path.isdir(pa):
            continue
        n += 1
        if f.endswith(".h5"):
            compare_h5(pa, pb, diffs)
            continue
        ta = open(pa, encoding="utf-8", errors="replace").read()
        tb = open(pb, encoding="utf-8", errors="replace").read()
        if f.endswith(".json"):
            ta, tb = strip_json(ta), strip_json(tb)
        elif f.endswith(".log") or f.endswith(".err"):
            # run logs print the wall time, rates and the output path
            def clean(t):
                # progress lines come as often as the clock says: dropped
                return "\n".join(
                    re.sub(r"[0-9][0-9.e+-]*", "N", ln)
                    if re.search(r"computed now|refinement:", ln) else ln
                    for ln in t.splitlines() if "points/s" not in ln)
            ta = clean(ta.replace(os.path.abspath(a), "DIR"))
            tb = clean(tb.replace(os.path.abspath(b), "DIR"))
        if ta != tb:
            diffs.append(f"{f}: differs")
    for d in diffs:
        print(d)
    print(f"refset: {n} files compared, {len(diffs)} differences"
          + (" (identical except version fields)" if not diffs else ""))
    return 1 if diffs else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
