#!/usr/bin/env bash
# Renders PROJECT in N chunks and its audio part with GNU parallel (JOBS at a time, default 2), then joins them
# into OUT.
#
#   examples/render-chunks.sh edit.json 8 final.mp4 [JOBS]
#
# The folder of OUT is created if it is missing. Parts go beside OUT, in a folder named after the plan's
# fingerprint (reel-parts-FINGERPRINT/part-K.mkv, with the job log chunks.log); the audio part (reel render
# --chunk audio: the whole timeline's audio, encoded once) is reel-sound-HASH.mov, HASH being that of the
# project file's bytes. reel writes every part to a temporary file and renames it when complete, so a part that
# exists is a finished part of that plan: running the same command again renders only the parts that are missing
# (after a failure or an interrupt), and after an edit of the project (or another chunk count) the fingerprint
# or hash changes and every part of the new plan is rendered. Nothing is taken from a job log. Remove the
# reel-parts-* folders and reel-sound-* files of older plans when you no longer need them.
#
# A job that fails leaves the others running; the script then exits 1 without joining (run it again to retry the
# missing parts). Add -S host1,host2 --trc {2} to the parallel call to spread the jobs over machines that share
# (or are sent) the project and its media. See docs/chunks.md.
set -euo pipefail
if [ $# -lt 3 ]; then
  echo "usage: $0 PROJECT CHUNKS OUT [JOBS]" >&2
  exit 64
fi
project=$1 chunks=$2 out=$3 jobs=${4:-2}
reel=${REEL:-reel}
dir=$(dirname "$out")
mkdir -p "$dir"
# reel plan validates the project (a failure ends the script with reel's exit code) and gives the fingerprint.
plan=$("$reel" plan "$project" --chunks "$chunks" --json)
fingerprint=$(printf '%s\n' "$plan" | sed -n 's/.*"fingerprint":"\([0-9a-f]*\)".*/\1/p')
parts="$dir/reel-parts-$fingerprint"
sound="$dir/reel-sound-$(sha256sum < "$project" | cut -c1-16).mov"
mkdir -p "$parts"
# One job per missing part, tab-separated: the --chunk value and the part's file.
jobs_list=()
for k in $(seq 0 $((chunks - 1))); do
  [ -e "$parts/part-$k.mkv" ] || jobs_list+=("$k/$chunks"$'\t'"$parts/part-$k.mkv")
done
[ -e "$sound" ] || jobs_list+=("audio"$'\t'"$sound")
if [ ${#jobs_list[@]} -gt 0 ]; then
  if ! parallel --will-cite -j "$jobs" --halt never --joblog "$parts/chunks.log" --colsep '\t' \
      "$reel" render "$project" --chunk {1} -o {2} -q ::: "${jobs_list[@]}"; then
    echo "$0: some parts failed (see $parts/chunks.log); run the same command again to render the missing ones" >&2
    exit 1
  fi
fi
part_files=()
for k in $(seq 0 $((chunks - 1))); do part_files+=("$parts/part-$k.mkv"); done
"$reel" join "$project" "${part_files[@]}" "$sound" -o "$out" --force -q
