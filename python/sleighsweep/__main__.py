"""`python3 -m sleighsweep export IN OUT [--group G]`: a squeezed
netCDF-4 copy of a sweep file that CDO and NCO read (sleighsweep.export).
Exit status 0 written, 2 bad arguments or an unusable input."""
import argparse
import sys

from .dataset import FileError, GROUPS, export


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python3 -m sleighsweep")
    sub = ap.add_subparsers(dest="command", required=True)
    ex = sub.add_parser("export", help="write a squeezed netCDF-4 copy "
                        "(the unswept axes dropped) that CDO and NCO read")
    ex.add_argument("input", metavar="IN", help="sleighsweep output file")
    ex.add_argument("output", metavar="OUT", help="netCDF-4 file to write")
    ex.add_argument("--group", choices=GROUPS,
                    help="export this group instead of the grid")
    try:
        args = ap.parse_args(argv)
    except SystemExit as e:
        return int(e.code or 0)
    try:
        export(args.input, args.output, group=args.group)
    except (FileError, OSError, ValueError) as e:
        print(f"sleighsweep export: error: {e}", file=sys.stderr)
        return 2
    print(args.output)
    return 0


if __name__ == "__main__":
    sys.exit(main())
