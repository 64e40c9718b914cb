#!/usr/bin/env bash
# Renders PROJECT in N chunks with GNU parallel (JOBS at a time, default 2), then joins them into OUT.
#
#   examples/render-chunks.sh edit.json 8 final.mp4 [JOBS]
#
# Parts and the job log go to the folder of OUT (part-K.mkv, chunks.log). A chunk that failed is re-run alone by
# running the same command again: parallel --resume-failed reads the job log, and a re-run chunk is the same
# bytes. Add -S host1,host2 --trc part-{}.mkv to the first parallel call to spread chunks over machines that share
# (or are sent) the project and its media. See docs/chunks.md.
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
parallel --will-cite -j "$jobs" --halt never --joblog "$log" "${mode[@]}" \
  "$reel" render "$project" --chunk {}/"$chunks" -o "$dir"/part-{}.mkv --force -q ::: $(seq 0 $((chunks - 1)))
parts=()
for k in $(seq 0 $((chunks - 1))); do parts+=("$dir/part-$k.mkv"); done
"$reel" join "$project" "${parts[@]}" -o "$out" --force -q
