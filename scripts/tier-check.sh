#!/bin/sh
# The tier order (README "Layout", docs/contributing.md): a file may include
# headers of its own tier and of the tiers before it, never of a later one.
# The table gives each tier its source folder under src/ (its private
# headers there are the tier's too) and its public headers in
# include/sleighsweep/. Every src/ folder and every public header must have
# a tier. Prints each violation as FILE:LINE: and exits 1 when there is one.
# Usage: scripts/tier-check.sh [ROOT]
set -eu
ROOT=${1:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$ROOT"

# tier   folder            public headers (include/sleighsweep/NAME.h)
TABLE='
util        src/util        error fmt names version
physics     src/physics     model analytic circulation drag effect
integrators src/integrators stepper ode dopri5 rattle
point       src/point       extract damped forced ensemble point path result
grid        src/grid        grid
config      src/config      config angle hint sample_points
refine      src/refine      refine
io          src/io          mpi_util h5out h5peek h5boundaries
sweep       src/sweep       sweep schedule journal plan preview progress refine_points refine_run runlock signals
cli         src/cli         cli
'

# FILE TEXT-OF-#INCLUDE-LINES -> violations, by awk over the table.
{
  printf '%s\n' "$TABLE" | sed '/^$/d' | sed 's/^/T /'
  for d in src/*/; do printf 'D %s\n' "${d%/}"; done
  for h in include/sleighsweep/*.h; do printf 'H %s\n' "$h"; done
  grep -n '^#include "' src/*/*.[ch] include/sleighsweep/*.h |
    sed 's/^/I /'
} | awk '
$1 == "T" {
  rank[$2] = ++n; name[n] = $2; folder[$3] = n
  for (i = 4; i <= NF; i++) header["include/sleighsweep/" $i ".h"] = n
  next
}
$1 == "D" {
  if (!($2 in folder)) { print $2 ": a src/ folder with no tier (scripts/tier-check.sh)"; bad++ }
  next
}
$1 == "H" {
  if (!($2 in header)) { print $2 ": a public header with no tier (scripts/tier-check.sh)"; bad++ }
  next
}
$1 == "I" {
  split($2, f, ":")                     # FILE:LINE:#include
  file = f[1]; line = f[2]
  match($0, /"[^"]*"/); inc = substr($0, RSTART + 1, RLENGTH - 2)
  if (file ~ /^include\//) from = header[file]
  else { dir = file; sub(/\/[^\/]*$/, "", dir); from = folder[dir] }
  if (inc ~ /^sleighsweep\//) to = header["include/" inc]
  else to = from                        # a private header of the same folder
  if (from && to && to > from) {
    printf "%s:%s: #include \"%s\": tier %s includes the later tier %s\n",
      file, line, inc, name[from], name[to]
    bad++
  }
}
END { exit bad ? 1 : 0 }
'
