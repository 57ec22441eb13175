#!/usr/bin/env bash
# slurm_down.sh DIR -- stop the private SLURM that slurm_up.sh started in DIR.
#
# Cancels the jobs of that cluster, stops exactly the daemons slurm_up.sh
# recorded as started by it (by the pids in DIR), waits for them to exit, then
# removes state, spool, pid and socket files.  DIR itself, slurm.conf and the
# logs under DIR/log are kept for post-mortems; the caller removes DIR.
# A munged that slurm_up.sh reused (system one) is left alone.
set -uo pipefail

[ $# -eq 1 ] || { echo "usage: $0 DIR" >&2; exit 2; }
[ -d "$1" ] || { echo "slurm_down: $1: no such directory" >&2; exit 0; }
DIR=$(cd "$1" && pwd -P)
CONF=$DIR/slurm.conf
PATH=$PATH:/usr/sbin:/sbin
note() { echo "slurm_down: $*" >&2; }

started() { [ -f "$DIR/run/started" ] && grep -qx "$1" "$DIR/run/started"; }
pidof_file() { [ -s "$1" ] && tr -dc '0-9' <"$1" || true; }
alive() { [ -n "${1:-}" ] && kill -0 "$1" 2>/dev/null; }

stop_pid() {  # stop_pid NAME PID: TERM, wait up to 20 s, then KILL
  local name=$1 pid=$2
  alive "$pid" || return 0
  # Make sure the pid still is that daemon before signalling it.
  if ! tr '\0' ' ' 2>/dev/null <"/proc/$pid/cmdline" | grep -q "$name"; then
    note "pid $pid is no longer $name; not touching it"
    return 0
  fi
  kill -TERM "$pid" 2>/dev/null || true
  for _ in $(seq 1 100); do
    alive "$pid" || { note "stopped $name (pid $pid)"; return 0; }
    sleep 0.2
  done
  note "$name (pid $pid) ignored SIGTERM; sending SIGKILL"
  kill -KILL "$pid" 2>/dev/null || true
  sleep 0.5
}

# Processes of this instance: slurm_up.sh starts the daemons with
# SSW_SLURM_INSTANCE=DIR in their environment, which slurmstepd inherits from
# slurmd.  Job processes are descendants of slurmstepd.
marked_pids() {
  local p
  for p in /proc/[0-9]*; do
    p=${p#/proc/}
    tr '\0' '\n' 2>/dev/null <"/proc/$p/environ" |
      grep -qxF "SSW_SLURM_INSTANCE=$DIR" && echo "$p"
  done
}
with_descendants() {  # PIDS... -> those pids and all their descendants
  ps -eo pid=,ppid= | awk -v roots="$*" '
    BEGIN { n = split(roots, r, " "); for (i = 1; i <= n; i++) keep[r[i]] = 1 }
    { parent[$1] = $2 }
    END {
      do { changed = 0
           for (c in parent) if (!(c in keep) && (parent[c] in keep)) { keep[c] = 1; changed = 1 }
      } while (changed)
      for (k in keep) print k
    }'
}

ctld=$(pidof_file "$DIR/run/slurmctld.pid")
slurmd=$(pidof_file "$DIR/run/slurmd.pid")

# 1. Cancel this cluster's jobs while the controller still runs.
if started slurmctld && alive "$ctld" && command -v squeue >/dev/null; then
  export SLURM_CONF=$CONF
  jobs=$(timeout 10 squeue -h -o '%i' 2>/dev/null || true)
  if [ -n "$jobs" ]; then
    note "cancelling jobs: $(echo $jobs)"
    # shellcheck disable=SC2086
    timeout 10 scancel $jobs 2>/dev/null || true
    for _ in $(seq 1 30); do
      [ -z "$(timeout 5 squeue -h -t R,CG -o '%i' 2>/dev/null)" ] && break
      sleep 1
    done
  fi
fi

# 2. The daemons, slurmd first (it talks to the controller on its way out).
started slurmd && stop_pid slurmd "$slurmd"
started slurmctld && stop_pid slurmctld "$ctld"

# 3. Leftover slurmstepd (and their job processes) of this instance.
left=$(marked_pids)
if [ -n "$left" ]; then
  left=$(with_descendants $left)
  note "killing leftover processes of this instance: $(echo $left)"
  # shellcheck disable=SC2086
  kill -KILL $left 2>/dev/null || true
fi

# 4. munged, only if we started it.
if started munged; then
  stop_pid munged "$(pidof_file "$DIR/munge/munged.pid")"
fi

# 5. Clean up everything but conf and logs.
rm -rf "$DIR/state" "$DIR/spool" "$DIR/run" "$DIR/tmp"
if [ -d "$DIR/munge" ]; then
  cp -f "$DIR/munge/munged.log" "$DIR/log/munged.log" 2>/dev/null || true
  rm -rf "$DIR/munge"
fi
exit 0
