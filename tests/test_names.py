"""One source of truth for names: a file the engine writes carries its
names (flag_values / flag_masks with flag_meanings, the coordinate and
/samples datasets in order, their units; all from
include/sleighsweep/names.h), and this test checks that docs/output.md's
tables and the names the sleighsweep package keeps (sleighsweep.sweep,
phase_diagram's category styles, validate's benign flags) are exactly
those. The grid axes: the package's body and run axes (AXIS_TABLE's kind
column) are names.h's SSW_BODY_AXES and SSW_RUN_AXES in storage order,
and a file sweeping every run axis has all the axes as dimensions in that
order (Sweep.axes reads them from the file's `done` dimensions).
Usage: test_names.py SLEIGHSWEEP REPO_ROOT"""
import os
import re
import subprocess
import sys
import tempfile

import h5py

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sswtest import ENV, check, exit_status  # noqa: E402

EXE, ROOT = sys.argv[1], sys.argv[2]
sys.path.insert(0, os.path.join(ROOT, "python"))
from sleighsweep import phase_diagram  # noqa: E402
from sleighsweep import sweep as sswfile  # noqa: E402
from sleighsweep import validate  # noqa: E402

CONFIG = """[body]
m = 1
I0 = 0.5
rho = 1
[grid]
theta = 0, 45deg
a = 0.1
A = 0.5
B = 0.3
[ensemble]
trajectories = 2
[output]
file = {out}
samples = 1
sample_nodes = 8
"""
# the same body, every run axis swept, in three files (the product of
# all would be 4096 points, most of them forced, and 512 in two files
# took six minutes under the sanitizers): the first fifteen dimensions
# (no forcing), the sine torque's three, then the moving mass's four; one
# trajectory per point (the names are the check)
SWEPT = CONFIG.replace("[ensemble]\n", "Gamma = 0, 1\nenergy = 0.5, 2\n"
                       "drag_w = 0.1, 0.2\ndrag_v = 0.1, 0.2\n"
                       "drag_wv = 0, 0.05\n[ensemble]\n").replace(
                           "samples = 1\n", "").replace(
                               "trajectories = 2\n", "trajectories = 1\n")
SWEPT_TORQUE = CONFIG.replace("[ensemble]\n", "drag_w = 1\ndrag_v = 2\n"
                              "forcing_freq = 2, 3\ntorque_amp = 0, 0.1\n"
                              "forcing_phase = 0, 0.5\n[ensemble]\n").replace(
                                  "samples = 1\n", "").replace(
                                      "trajectories = 2\n",
                                      "trajectories = 1\n")
SWEPT_MASS = CONFIG.replace("[ensemble]\n", "drag_w = 1\ndrag_v = 2\n"
                            "forcing_freq = 2\nmass_p = 0, 0.1\n"
                            "mass_x = 0.1, 0.2\nmass_y = 0, 0.1\n"
                            "mass_amp = 0.05, 0.1\n[ensemble]\n").replace(
                                "samples = 1\n", "").replace(
                                    "trajectories = 2\n",
                                    "trajectories = 1\n")
CATEGORIES = {"regime": "regime", "sense_future": "sense",
              "analytic_sense": "sense", "done": "done", "flags": "flags",
              "attractor": "attractor"}


def text(v):
    return v.decode() if isinstance(v, bytes) else str(v)


def engine_names(path):
    """What the file says: {category: [(value, name)]}, axes, samples."""
    out = {}
    with h5py.File(path, "r") as f:
        for ds, cat in CATEGORIES.items():
            a = f[ds].attrs
            vals = a.get("flag_values", a.get("flag_masks"))
            pairs = list(zip([int(v) for v in vals],
                             text(a["flag_meanings"]).split()))
            check(len(pairs) == len(vals), f"{ds}: values and meanings")
            check(out.setdefault(cat, pairs) == pairs,
                  f"{ds}: {pairs} differs from the other {cat} dataset")
        out["axes"] = [d[0].name.lstrip("/") for d in f["J"].dims]
        g = f["samples"]
        names = []
        g.id.links.iterate(lambda n: names.append(n.decode()),
                           idx_type=h5py.h5.INDEX_CRT_ORDER)
        out["samples"] = [(n, text(g[n].attrs["units"]),
                           text(g[n].attrs["long_name"])) for n in names
                          if n not in ("point", "sample", "node") and
                          n not in out["axes"]]
        out["axis_units"] = [text(f[a].attrs["units"]) for a in out["axes"]]
        out["initial_conditions"] = text(f.attrs["initial_conditions"])
        out["reconstruction"] = text(f.attrs["reconstruction"])
    return out


def table_after(lines, start):
    """Rows (lists of cells) of the first markdown table after line
    `start`, its header and separator skipped."""
    i = start
    while not lines[i].lstrip().startswith("|"):
        i += 1
    rows = []
    while i < len(lines) and lines[i].lstrip().startswith("|"):
        rows.append([c.strip() for c in lines[i].strip().strip("|")
                     .split("|")])
        i += 1
    return rows[2:]


def bullet(lines, name):
    """flag values and meanings stated by the bullet `- \\`name\\`...`."""
    i = next(k for k, ln in enumerate(lines) if ln.startswith("- `") and
             f"`{name}`" in ln.split(":")[0])
    body = " ".join(ln.strip() for ln in lines[i:i + 4])
    m = re.search(r"`flag_(?:values|masks)` = ([-\d ]+), `flag_meanings` ="
                  r'\s*"([^"]+)"', body)
    return list(zip([int(v) for v in m.group(1).split()],
                    m.group(2).split())) if m else None


def line_of(lines, prefix):
    return next(k for k, ln in enumerate(lines) if ln.startswith(prefix))


def check_docs(names, path):
    lines = open(path).read().split("\n")
    for ds, cat in CATEGORIES.items():
        check(bullet(lines, ds) == names[cat],
              f"docs: {ds} bullet {bullet(lines, ds)} != {names[cat]}")
    rows = [(int(r[0]), r[1].strip("`"))
            for r in table_after(lines, line_of(lines, "- `regime`"))]
    check(rows == names["regime"], f"docs: regime table {rows}")
    rows = [(int(r[0]), r[1].strip("`"))
            for r in table_after(lines, line_of(lines, "- `flags`"))]
    check(rows == names["flags"], f"docs: flag table {rows}")
    start = line_of(lines, "## Dimensions and coordinates")
    axes = [n for r in table_after(lines, start)
            for n in re.findall(r"`(\w+)`", r[0])]
    # the table lists every axis: the seven and the run's two (dimensions
    # when swept), in the order of a swept file's dimensions
    check(axes == names["all_axes"], f"docs: dimension table {axes}, a "
          f"swept file's dimensions {names['all_axes']}")
    doc = " ".join(lines)
    want = " ".join(n for n, _, _ in names["samples"])
    check(f"Datasets `{want}`" in doc, f"docs: /samples datasets `{want}`")
    start = line_of(lines, "## Sample trajectories")
    rows = [(r[0].strip("`"), r[1], r[2]) for r in table_after(lines, start)]
    check(rows == names["samples"], f"docs: /samples table {rows}")
    for key in ("initial_conditions", "reconstruction"):
        row = next((ln for ln in lines if ln.startswith("| `") and
                    f"`{key}`" in ln.split("|")[1]), "")
        check(f'"{names[key]}"' in row, f"docs: {key} row {row!r}")


def header_axes(root):
    """{'SSW_BODY_AXES': [(index, name)], 'SSW_RUN_AXES': [...]} from
    include/sleighsweep/names.h."""
    text = open(os.path.join(root, "include", "sleighsweep",
                             "names.h")).read()
    out = {}
    for macro in ("SSW_BODY_AXES", "SSW_RUN_AXES"):
        m = re.search(r"#define " + macro + r"\(XM\)(.*?)(?:\n#|\n\n)",
                      text, re.S)
        body = m.group(1) if m else ""
        out[macro] = [(int(i), n) for i, n in
                      re.findall(r'XM\(\w+,\s*(\d+),\s*"(\w+)"', body)]
    return out


def check_axes(root, swept_dims, sweep_axes):
    """sswfile's axis tables against names.h and a swept file."""
    h = header_axes(root)
    body, run = h["SSW_BODY_AXES"], h["SSW_RUN_AXES"]
    check(body and run, f"names.h axes {h}")
    check([i for i, _ in body + run] == list(range(len(body + run))),
          f"names.h axis indices {body + run}")
    check(list(sswfile.BODY_AXES) == [n for _, n in body],
          f"sswfile.BODY_AXES {sswfile.BODY_AXES} != names.h {body}")
    check(list(sswfile.RUN_AXES) == [n for _, n in run],
          f"sswfile.RUN_AXES {sswfile.RUN_AXES} != names.h {run}")
    check(list(sswfile.ALL_AXES) == [n for _, n in body + run] ==
          [row[0] for row in sswfile.AXIS_TABLE],
          f"sswfile.ALL_AXES {sswfile.ALL_AXES}")
    for table in ("AXIS_SYMBOLS", "TITLE_SYMBOLS", "AXIS_NAMES",
                  "LABEL_NAMES"):
        check(list(getattr(sswfile, table)) == list(sswfile.ALL_AXES),
              f"sswfile.{table} keys")
    check(swept_dims == list(sswfile.ALL_AXES),
          f"swept file's dimensions {swept_dims}")
    check(list(sweep_axes) == list(sswfile.ALL_AXES),
          f"sswfile.Sweep(swept file).axes {sweep_axes}")


def check_analysis(names):
    # sswfile.AXES: the body's seven, the dimensions of a file that sweeps
    # no run axis.
    check(list(sswfile.AXES) == names["axes"],
          f"sswfile.AXES {sswfile.AXES}")
    check(list(sswfile.SAMPLE_QUANTITIES) ==
          [n for n, _, _ in names["samples"]],
          f"sswfile.SAMPLE_QUANTITIES {sswfile.SAMPLE_QUANTITIES}")
    for attr, cat in (("REGIMES", "regime"), ("SENSES", "sense"),
                      ("DONE_STATES", "done"), ("TRAJ_FLAGS", "flags"),
                      ("ATTRACTORS", "attractor")):
        got = getattr(sswfile, attr)
        check(list(got.items()) == names[cat], f"sswfile.{attr} {got}")
    for cat, style in phase_diagram.CATEGORY_STYLE.items():
        keys = [n for _, n in names[cat]]
        check(list(style) == keys,
              f"phase_diagram.CATEGORY_STYLE[{cat!r}] {list(style)} != {keys}")
    flags = [n for _, n in names["flags"]]
    check(set(validate.BENIGN_FLAGS) <= set(flags),
          f"validate.BENIGN_FLAGS {validate.BENIGN_FLAGS} not in {flags}")


def main():
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "names.h5")
        cfg = os.path.join(tmp, "names.ini")
        with open(cfg, "w") as f:
            f.write(CONFIG.format(out=out))
        r = subprocess.run([EXE, "run", "--quiet", cfg], env=ENV,
                           capture_output=True, text=True)
        check(r.returncode == 0, f"run: {r.returncode} {r.stderr}")
        names = engine_names(out)
        swept_dims, sweep_axes = [], ()
        for k, text in enumerate((SWEPT, SWEPT_TORQUE, SWEPT_MASS)):
            swept = os.path.join(tmp, f"swept{k}.h5")
            with open(cfg, "w") as f:
                f.write(text.format(out=swept))
            r = subprocess.run([EXE, "run", "--quiet", cfg], env=ENV,
                               capture_output=True, text=True)
            check(r.returncode == 0,
                  f"run (swept {k}): {r.returncode} {r.stderr}")
            with h5py.File(swept, "r") as f:
                dims = [d[0].name.lstrip("/") for d in f["J"].dims]
            with sswfile.Sweep(swept) as s:
                axes = s.axes
            # each file's run axes follow the previous one's
            swept_dims += [d for d in dims if d not in swept_dims]
            sweep_axes += tuple(a for a in axes if a not in sweep_axes)
        names["all_axes"] = swept_dims
    check(names["regime"][0] == (0, "uniform") and
          names["flags"][-1] == (1024, "exponents_undecided"),
          f"engine names {names['regime']} {names['flags']}")
    check_docs(names, os.path.join(ROOT, "docs", "output.md"))
    check_analysis(names)
    check_axes(ROOT, swept_dims, sweep_axes)
    return exit_status()


if __name__ == "__main__":
    sys.exit(main())
