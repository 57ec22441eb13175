#!/usr/bin/python3
"""Size limits of the C sources: no file over 800 lines, no function over 80.

Counts a function from the first line of its signature (at column 0) to
its closing '}' (at column 0), as clang-format lays them out. Prints the
longest files and functions; exit status 1 when a limit is passed.
Usage: scripts/size-check.py [--top N] [PATH ...]
"""
import argparse
import pathlib
import re
import subprocess
import sys

FILE_MAX = 800
FUNC_MAX = 80
DECL = re.compile(r"^[A-Za-z_][\w\s\*,]*?(\w+)\s*\(")


def functions(lines):
    """Yield (name, first line, length) of each function body."""
    i = 0
    while i < len(lines):
        m = DECL.match(lines[i])
        if not m or lines[i].rstrip().endswith(";"):
            i += 1
            continue
        j = i  # the signature runs to the line that opens the body
        while j < len(lines) and not lines[j].rstrip().endswith(("{", ";")):
            j += 1
        if j == len(lines) or lines[j].rstrip().endswith(";") or \
                "=" in lines[i]:
            i = j + 1
            continue
        k = j
        while k < len(lines) and not lines[k].startswith("}"):
            k += 1
        yield m.group(1), i + 1, k - i + 1
        i = k + 1


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--top", type=int, default=5)
    ap.add_argument("paths", nargs="*")
    a = ap.parse_args()
    root = pathlib.Path(__file__).resolve().parent.parent
    paths = a.paths or subprocess.run(
        ["git", "ls-files", "src/*.c", "src/*.h", "include/*.h",
         "tests/bench/*.c"], cwd=root, capture_output=True, text=True,
        check=True).stdout.split()
    files, funcs = [], []
    for p in paths:
        lines = (root / p).read_text().splitlines()
        files.append((len(lines), p))
        funcs += [(n, f"{p}:{first} {name}") for name, first, n in
                  functions(lines)]
    files.sort(reverse=True)
    funcs.sort(reverse=True)
    bad = [f for f in files if f[0] > FILE_MAX]
    bad += [f for f in funcs if f[0] > FUNC_MAX]
    print(f"size-check: longest files (limit {FILE_MAX} lines):")
    for n, p in files[:a.top]:
        print(f"  {n:5d} {p}")
    print(f"size-check: longest functions (limit {FUNC_MAX} lines):")
    for n, p in funcs[:a.top]:
        print(f"  {n:5d} {p}")
    for n, p in bad:
        print(f"size-check: {p}: {n} lines, over the limit", file=sys.stderr)
    print(f"size-check: {len(files)} files, {len(funcs)} functions, "
          f"{len(bad)} over the limits")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
