#!/usr/bin/env bash
# Starts a one-node Slurm cluster on localhost (munged, slurmctld, slurmd from the Debian 12 packages munge,
# slurmctld, slurmd and slurm-client), submits the Slurm recipes for real, waits for their jobs, checks the outputs
# with ffprobe, and stops the daemons it started (docs/batch.md).
#
#   scripts/slurm-local.sh [REEL]           REEL: the reel binary (default: .build/release/reel)
#
# It checks, in a temporary folder:
#   1. examples/slurm/render-rows.sh: 5 rows of a template in 2 shards → 5 files of the right duration, and two
#      manifests with every row done;
#   2. examples/slurm/render-chunks.sh into a folder that does not exist yet → the joined file has every frame;
#   3. render-chunks.sh on a project whose media vanished after submission → the array fails, and the join is
#      cancelled (not left pending with DependencyNeverSatisfied).
# Needs root (munged and slurmd run as root here). Exits 77 when it cannot run (not root, packages missing), 0 when
# every check passed, 1 otherwise. Everything it starts is stopped on exit, whatever happens.
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
reel=$(realpath "${1:-$here/.build/release/reel}")
skip() { echo "slurm-local: skipped: $*" >&2; exit 77; }
fail() { echo "slurm-local: FAILED: $*" >&2; exit 1; }
[ "$(id -u)" -eq 0 ] || skip "needs root to run munged and slurmd"
for tool in munged slurmctld slurmd sbatch squeue sinfo scontrol ffmpeg ffprobe; do
  command -v "$tool" >/dev/null || skip "$tool is not installed (apt-get install munge slurmctld slurmd slurm-client ffmpeg)"
done
[ -x "$reel" ] || skip "no reel binary at $reel"

work=$(mktemp -d /tmp/reel-slurm.XXXXXX)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null; done
  for pid in "${pids[@]}"; do
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null
  done
  [ -n "${KEEP:-}" ] || rm -rf "$work"
}
trap cleanup EXIT

# Ports of their own, so that a Slurm already running on the machine is left alone.
port=$((20000 + RANDOM % 20000))
node=$(hostname -s)
mkdir -p "$work/state" "$work/spool" "$work/munge"
cp /etc/munge/munge.key "$work/munge/key" 2>/dev/null \
  || dd if=/dev/urandom of="$work/munge/key" bs=1024 count=1 status=none
chmod 0400 "$work/munge/key"
munged --force --socket="$work/munge/socket" --key-file="$work/munge/key" --pid-file="$work/munge/pid" \
  --log-file="$work/munge/log" --seed-file="$work/munge/seed" || fail "munged did not start"
pids+=("$(cat "$work/munge/pid")")
cat >"$work/slurm.conf" <<CONF
ClusterName=reeltest
SlurmctldHost=$node(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$work/munge/socket
CredType=cred/munge
SlurmctldPort=$port
SlurmdPort=$((port + 1))
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/slurmctld.log
SlurmdLogFile=$work/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
ReturnToService=2
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/backfill
NodeName=$node NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=local Nodes=$node Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF=$work/slurm.conf
slurmctld -D -i >"$work/slurmctld.out" 2>&1 &
pids+=($!)
disown $!  # the cleanup stops it; bash need not report how
slurmd -D -N "$node" >"$work/slurmd.out" 2>&1 &
pids+=($!)
disown $!
for _ in $(seq 60); do
  state=$(sinfo -h -N -o '%T' 2>/dev/null | head -1)
  [ "$state" = idle ] && break
  sleep 1
done
[ "$state" = idle ] || { tail -5 "$work/slurmctld.log" "$work/slurmd.log" >&2; fail "the node never became idle ($state)"; }

# Waits until none of the given jobs is in the queue (at most $2 seconds); prints their final states.
wait_jobs() {
  local jobs=$1 limit=$2
  for _ in $(seq "$limit"); do
    [ -z "$(squeue -h -j "$jobs" 2>/dev/null)" ] && break
    sleep 1
  done
  [ -z "$(squeue -h -j "$jobs" 2>/dev/null)" ] || { squeue -j "$jobs" >&2; return 1; }
}
duration() { ffprobe -v error -show_entries format=duration -of csv=p=0 "$1"; }
frames() { ffprobe -v error -count_frames -select_streams v:0 -show_entries stream=nb_read_frames -of csv=p=0 "$1"; }

cd "$work" || fail "no work folder"
export REEL=$reel
ffmpeg -v error -f lavfi -i testsrc=size=320x180:rate=30 -frames:v 1 photo.png || fail "ffmpeg"
ffmpeg -v error -f lavfi -i testsrc=size=320x180:rate=30 -f lavfi -i sine=frequency=440:sample_rate=48000 \
  -t 4 -c:v libx264 -pix_fmt yuv420p -c:a aac clip.mp4 || fail "ffmpeg"

# 1. Rows.
cat >card.json <<'JSON'
{ "reel": 1,
  "variables": { "id": { "type": "string" }, "name": { "type": "string", "default": "Hello" },
                 "seconds": { "type": "number", "default": 1, "minimum": 0.5, "maximum": 5 } },
  "output": { "size": [320, 180], "frameRate": 30, "preset": "draft" },
  "assets": { "photo": { "image": "photo.png" } },
  "timeline": { "clips": [ { "asset": "photo", "duration": "{{seconds}}" } ],
                "titles": [ { "text": "{{name}}", "start": 0, "duration": "{{seconds}}", "size": 24 } ] } }
JSON
printf 'id,name,seconds\na,"Ann, the first",1\nb,Bob,1.5\nc,"=cmd|x",0.5\nd,"two\nlines",2\ne,Eve,1\n' >people.csv
job=$("$here/examples/slurm/render-rows.sh" card.json people.csv 'rows-out/{{id}}.mp4' 2) || fail "render-rows.sh"
wait_jobs "$job" 300 || fail "the rows array did not finish"
declare -A expected=([a]=1 [b]=1.5 [c]=0.5 [d]=2 [e]=1)
for id in "${!expected[@]}"; do
  [ -f "rows-out/$id.mp4" ] || { cat rows-out/*.log >&2; fail "rows-out/$id.mp4 is missing"; }
  got=$(duration "rows-out/$id.mp4")
  awk -v a="$got" -v b="${expected[$id]}" 'BEGIN { exit !(a - b < 0.04 && b - a < 0.04) }' \
    || fail "rows-out/$id.mp4 lasts $got s, not ${expected[$id]}"
done
done_rows=$(cat rows-out/manifest-*.jsonl | grep -c '"status":"done"')
[ "$done_rows" -eq 5 ] || fail "the manifests record $done_rows rows done, not 5"
echo "slurm-local: rows: 5 files in 2 shards, durations right"

# 2. Chunks into a folder that does not exist.
cat >edit.json <<'JSON'
{ "reel": 1, "output": { "size": [320, 180], "frameRate": 30, "preset": "draft" },
  "assets": { "clip": { "path": "clip.mp4" } },
  "timeline": { "clips": [ { "asset": "clip", "in": 0, "out": 4 } ] } }
JSON
ids=$("$here/examples/slurm/render-chunks.sh" edit.json 3 new-folder/final.mp4) || fail "render-chunks.sh"
wait_jobs "$(echo $ids | tr ' ' ',')" 300 || fail "the chunk jobs did not finish"
[ -f new-folder/final.mp4 ] || { cat new-folder/*.log >&2; fail "new-folder/final.mp4 is missing"; }
count=$(frames new-folder/final.mp4)
[ "$count" -eq 120 ] || fail "the joined file has $count frames, not 120"
echo "slurm-local: chunks: 120 frames joined from 3 parts"

# 3. A failed array cancels its join.
cp clip.mp4 doomed.mp4
sed 's/clip.mp4/doomed.mp4/' edit.json >doomed.json
scontrol update partitionname=local state=down >/dev/null   # hold the array until the media is gone
ids=$("$here/examples/slurm/render-chunks.sh" doomed.json 2 doomed-out/final.mp4) || fail "render-chunks.sh (doomed)"
rm doomed.mp4
scontrol update partitionname=local state=up >/dev/null
wait_jobs "$(echo $ids | tr ' ' ',')" 120 || fail "a job of the failed array was left in the queue"
[ ! -e doomed-out/final.mp4 ] || fail "a join ran after a failed array"
echo "slurm-local: failed array: its join was cancelled, nothing left pending"
echo "slurm-local: all checks passed"
