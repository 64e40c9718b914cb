#!/usr/bin/env bash
# Renders PROJECT in N chunks and its audio part with GNU parallel (JOBS at a time, default 2), then joins them
# into OUT.
#
#   examples/render-chunks.sh edit.json 8 final.mp4 [JOBS]
#
# Parts and the job log go to the folder of OUT (part-K.mkv, sound.mov, chunks.log). The audio part (reel render
# --chunk audio: the whole timeline's audio, encoded once) is one more job beside the N video chunks, so the join
# only copies packets. A job that failed is re-run alone by running the same command again: parallel
# --resume-failed reads the job log, and a re-run part is the same bytes. Add -S host1,host2 --trc {2} to the
# parallel call to spread the jobs over machines that share (or are sent) the project and its media.
# See docs/chunks.md.
set -euo pipefail
if [ $# -lt 3 ]; then
  echo "usage: $0 PROJECT CHUNKS OUT [JOBS]" >&2
  exit 64
fi
project=$1 chunks=$2 out=$3 jobs=${4:-2}
reel=${REEL:-reel}
dir=$(dirname "$out")
log="$dir/chunks.log"
mode=()
[ -e "$log" ] && mode=(--resume-failed)
# One job per line: the --chunk value and the part's file name.
jobs_list=()
for k in $(seq 0 $((chunks - 1))); do jobs_list+=("$k/$chunks part-$k.mkv"); done
jobs_list+=("audio sound.mov")
parallel --will-cite -j "$jobs" --halt never --joblog "$log" "${mode[@]}" --colsep ' ' \
  "$reel" render "$project" --chunk {1} -o "$dir"/{2} --force -q ::: "${jobs_list[@]}"
parts=()
for k in $(seq 0 $((chunks - 1))); do parts+=("$dir/part-$k.mkv"); done
"$reel" join "$project" "${parts[@]}" "$dir/sound.mov" -o "$out" --force -q
