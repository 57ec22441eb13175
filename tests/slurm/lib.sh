# shellcheck shell=bash
# Shared helpers of the SLURM tests (sourced, not run).
#
# slurm_test_setup NAME   root/apt checks, a mktemp dir, slurm_up.sh into it,
#                         teardown on EXIT.  Sets SSW_T (work dir), SLURM_CONF.
# wait_job ID SECONDS     polls 'scontrol show job' (no accounting here, so no
#                         sacct) until a final state; prints the state.
# job_field ID FIELD      one Field=value of 'scontrol show job'.
# fail MESSAGE            message, job and daemon log tails, exit 1.
# SSW_KEEP=1 keeps the work dir (jobs, logs, conf) of a failed run, =always of
# any run.
# Exit statuses: 0 pass, 77 skip (not root / no apt with SLURM missing), 1 fail.

SSW_SLURM_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
PATH=$PATH:/usr/sbin:/sbin

t_start=$(date +%s)
elapsed() { echo $(( $(date +%s) - t_start )); }
msg() { echo "[$(basename "$0") +$(elapsed)s] $*"; }

dump_logs() {
  local f
  [ -n "${SSW_T:-}" ] || return 0
  for f in "$SSW_T"/jobs/*.out "$SSW_T"/jobs/*.log "$SSW_T"/slurm/log/slurmctld.log \
           "$SSW_T"/slurm/log/slurmd.log "$SSW_T"/slurm/munge/munged.log; do
    [ -f "$f" ] || continue
    echo "----- tail of $f -----"
    tail -n 40 "$f"
  done
  if [ -n "${SLURM_CONF:-}" ] && command -v scontrol >/dev/null; then
    echo "----- scontrol show job -----"
    timeout 10 scontrol show job 2>&1 | grep -E 'JobId|JobState|ExitCode|Restarts|StdOut' || true
  fi
}

fail() {
  echo "FAIL: $*" >&2
  dump_logs >&2
  exit 1
}

skip() {
  echo "SKIP: $*"
  exit 77
}

slurm_test_teardown() {
  local rc=$?
  trap - EXIT
  if [ -n "${SSW_T:-}" ] && [ -d "$SSW_T/slurm" ]; then
    "$SSW_SLURM_DIR/slurm_down.sh" "$SSW_T/slurm" || true
  fi
  if [ -n "${SSW_T:-}" ]; then
    # SSW_KEEP=1: keep the work dir of a failed run; SSW_KEEP=always: of any.
    if [ "${SSW_KEEP:-}" = always ] || { [ -n "${SSW_KEEP:-}" ] && [ "$rc" != 0 ] && [ "$rc" != 77 ]; }; then
      echo "kept $SSW_T (SSW_KEEP=$SSW_KEEP)"
    else
      rm -rf "$SSW_T"
    fi
  fi
  exit "$rc"
}

# Installs Debian packages if missing (root + apt only), else skips.
need_packages() {  # need_packages CMD PACKAGE...
  local cmd=$1
  shift
  command -v "$cmd" >/dev/null 2>&1 && return 0
  [ "$(id -u)" = 0 ] || skip "$cmd missing and not root (needs: $*)"
  command -v apt-get >/dev/null 2>&1 || skip "$cmd missing and no apt-get (needs: $*)"
  msg "installing $*"
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y "$@" >/dev/null 2>&1 ||
    { apt-get update >/dev/null 2>&1 && apt-get install -y "$@" >/dev/null 2>&1; } ||
    fail "apt-get install $* failed"
  command -v "$cmd" >/dev/null 2>&1 || fail "$cmd still missing after installing $*"
}

slurm_test_setup() {
  [ "$(id -u)" = 0 ] || skip "the SLURM tests start slurmctld/slurmd and must run as root"
  SSW_T=$(mktemp -d "${TMPDIR:-/tmp}/ssw-$1.XXXXXX")
  chmod 0755 "$SSW_T"
  mkdir -p "$SSW_T/jobs" "$SSW_T/tmp"
  trap slurm_test_teardown EXIT
  local out rc
  out=$("$SSW_SLURM_DIR/slurm_up.sh" "$SSW_T/slurm")
  rc=$?
  [ "$rc" = 77 ] && skip "slurm_up.sh: SLURM not available"
  [ "$rc" = 0 ] || fail "slurm_up.sh failed (status $rc)"
  eval "$(echo "$out" | grep '^export SLURM_CONF=')"
  [ -n "${SLURM_CONF:-}" ] || fail "slurm_up.sh printed no SLURM_CONF"
  export SLURM_CONF
  export TMPDIR=$SSW_T/tmp   # jobs inherit it: Open MPI session dirs stay here
  msg "SLURM up in $(elapsed)s ($SLURM_CONF)"
}

job_field() {
  timeout 10 scontrol show job "$1" 2>/dev/null |
    tr ' ' '\n' | grep "^$2=" | head -n 1 | cut -d= -f2-
}

wait_job() {  # wait_job ID TIMEOUT -> prints final JobState, 1 on timeout
  local id=$1 limit=$2 deadline state
  deadline=$(( $(date +%s) + limit ))
  while [ "$(date +%s)" -lt "$deadline" ]; do
    state=$(job_field "$id" JobState)
    case "$state" in
      COMPLETED|FAILED|CANCELLED|TIMEOUT|NODE_FAIL|OUT_OF_MEMORY|BOOT_FAIL|DEADLINE|PREEMPTED)
        echo "$state"; return 0 ;;
    esac
    sleep 1
  done
  echo "${state:-UNKNOWN}"
  return 1
}

submit() {  # submit SBATCH-ARGS... -> job id
  local id
  id=$(sbatch --parsable "$@") || fail "sbatch $* failed"
  echo "${id%%;*}"
}
