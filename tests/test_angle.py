"""One angle grammar: the C parser (src/config/angle.c, through
tests/angle_echo) and analysis/sswfile.py parse_angle give the same
radians, bit for bit, or the same refusal, on a table of inputs; the
config and `point --theta` refuse a bare 180 with 'did you mean 180deg?'.
Usage: test_angle.py ANGLE_ECHO SLEIGHSWEEP MPIEXEC"""
import math
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "python"))
sys.path.insert(0, HERE)
from sleighsweep import sweep as sswfile  # noqa: E402
from sswtest import ENV, check, exit_status  # noqa: E402

# (input, expected radians or None for a refusal)
TABLE = [
    ("0", 0.0), ("-0", 0.0), ("1.5", 1.5), (" 1.5 ", 1.5), (".5", 0.5),
    ("1.", 1.0), ("6.28", 6.28), ("-6.28", -6.28), ("6.3", None),
    ("7", None), ("60", None), ("180", None), ("-90", None), ("1e1", None),
    ("2e-1", 0.2), ("60deg", (60.0 / 180.0) * math.pi),
    ("60 deg", (60.0 / 180.0) * math.pi), ("180deg", math.pi),
    ("-45deg", -math.pi / 4), ("720deg", 4 * math.pi), ("7rad", 7.0),
    ("1.2 rad", 1.2), ("pi", math.pi), ("-pi", -math.pi),
    ("+pi", math.pi), ("pi/3", math.pi / 3), ("2pi/3", 2 * math.pi / 3),
    ("2*pi/3", 2 * math.pi / 3), ("2 * pi / 3", 2 * math.pi / 3),
    ("-0.5pi", -0.5 * math.pi), ("3pi", 3 * math.pi), ("1e2pi", 100 * math.pi),
    ("pi/0", None), ("pi/-2", None), ("*pi", None), ("--pi", None),
    ("2pi3", None), ("pie", None), ("Pi", None), ("60DEG", None),
    ("60degrees", None), ("60 d", None), ("deg", None), ("", None),
    ("nan", None), ("inf", None), ("0x1p1", None), ("1e400deg", None),
    ("1,5", None), ("1_0", None), ("\u0661", None), ("1e", None),
    ("60deg deg", None), ("1..2", None),
]


def c_values(echo, inputs):
    out = subprocess.run([echo] + inputs, capture_output=True, text=True,
                         check=True).stdout.split("\n")
    return out[:len(inputs)]


def main():
    echo, exe, mpiexec = sys.argv[1], sys.argv[2], sys.argv[3]
    # run through mpirun: a singleton MPI start trips LeakSanitizer's
    # tracer in the sanitized build (scripts/sanitize.sh)
    mpi = [mpiexec, "-np", "1"]
    inputs = [t for t, _ in TABLE]
    for (text, want), c in zip(TABLE, c_values(echo, inputs)):
        try:
            py, py_err = sswfile.parse_angle(text), None
        except ValueError as e:
            py, py_err = None, str(e)
        if want is None:
            check(py_err is not None, f"python accepts {text!r}: {py!r}")
            check(c.startswith("error: "), f"C accepts {text!r}: {c}")
            check(c == "error: " + str(py_err),
                  f"{text!r}: messages differ: C {c!r}, python {py_err!r}")
        else:
            check(py == want, f"python {text!r} -> {py!r} ({py_err}), "
                  f"expected {want!r}")
            check(c == f"{want:.17g}".replace("e+", "e+"),
                  f"C {text!r} -> {c}, expected {want:.17g}")
            check(float(c) == want if not c.startswith("error") else False,
                  f"C {text!r} -> {c} is not {want!r} bit for bit")
    hint = [t for t, _ in TABLE if t == "180"]
    check(hint and "did you mean 180deg?" in
          c_values(echo, hint)[0], "no degree hint for 180")

    # point --theta 60: refused with the hint, exit status 2
    r = subprocess.run([exe, "point", "--theta", "60"], capture_output=True,
                       text=True, env=ENV)
    check(r.returncode == 2 and "did you mean 60deg?" in r.stderr,
          f"point --theta 60: status {r.returncode}, {r.stderr!r}")
    r = subprocess.run([exe, "point", "--theta", "2pi/3"], capture_output=True,
                       text=True, env=ENV)
    check(r.returncode == 0 and '"theta": 2.0943951023931953' in r.stdout,
          f"point --theta 2pi/3: status {r.returncode} {r.stderr!r}")

    # a config with a bare theta = 180 is refused before anything is written
    with tempfile.TemporaryDirectory() as d:
        ini = os.path.join(d, "bare.ini")
        with open(ini, "w") as f:
            f.write("[body]\nm = 1\nI0 = 0.5\nrho = 1\n[grid]\n"
                    "theta = linspace(0, 180, 7)\na = 0.2\nA = 0.5\n"
                    "B = 0.3\n")
        r = subprocess.run(mpi + [exe, "run", "--dry-run", ini],
                           capture_output=True, text=True, env=ENV)
        check(r.returncode == 2 and f"{ini}:6: [grid] theta:" in r.stderr and
              "did you mean 180deg?" in r.stderr,
              f"bare 180 config: status {r.returncode}, {r.stderr!r}")
        check(not os.path.exists(os.path.join(d, "bare.h5")),
              "bare 180 config wrote a file")
        # --dry-run shows every axis's range, theta also in degrees
        with open(ini, "w") as f:
            f.write("[body]\nm = 1\nI0 = 0.5\nrho = 1\n[grid]\n"
                    "theta = linspace(0, 180deg, 7)\na = 0.2, 0.5\n"
                    "A = 0.5\nB = 0.3\n")
        r = subprocess.run(mpi + [exe, "run", "--dry-run", ini],
                           capture_output=True, text=True, env=ENV)
        # (names padded to the longest axis name, forcing_phase)
        check(r.returncode == 0 and "  theta               7 values  0 to "
              "3.141592654 rad (0 to 180 deg)\n" in r.stdout and
              "  a                   2 values  0.2 to 0.5\n" in r.stdout,
              f"dry-run axes: {r.returncode} {r.stdout!r} {r.stderr!r}")
    return exit_status()


if __name__ == "__main__":
    sys.exit(main())
