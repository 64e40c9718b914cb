#!/usr/bin/env bash
# Renders PROJECT in N chunks and its audio part as a Slurm array job on shared storage, then joins them in a
# dependent job.
#
#   examples/slurm/render-chunks.sh /shared/edit.json 8 /shared/final.mp4
#
# The array has N + 1 tasks: tasks 0 … N-1 render one chunk each (--chunk $SLURM_ARRAY_TASK_ID/N), task N renders
# the audio part (--chunk audio: the whole timeline's audio, encoded once), so the join only copies packets. Each
# task uses one encoder thread, so a re-run gives the same bytes. The project, its media and the output folder
# must be on storage every node mounts at the same path; the output folder is created here, before anything is
# submitted (Slurm cannot write the task logs into a missing folder).
#
# Parts go into a folder named after the plan's fingerprint (reel-parts-FINGERPRINT), the audio part is named
# after the project file's hash: after an edit every part of the new plan is rendered, and running the same
# command again renders only the parts that are missing (a part exists only once complete: reel renames it into
# place). The join runs only when every task succeeded; if one fails, Slurm cancels the join
# (--kill-on-invalid-dep) instead of leaving it pending forever: run the same command again. docs/chunks.md.
set -euo pipefail
if [ $# -ne 3 ]; then
  echo "usage: $0 PROJECT CHUNKS OUT" >&2
  exit 64
fi
project=$1 chunks=$2 out=$3
reel=${REEL:-reel}
dir=$(dirname "$out")
mkdir -p "$dir"
plan=$("$reel" plan "$project" --chunks "$chunks" --json)
fingerprint=$(printf '%s\n' "$plan" | sed -n 's/.*"fingerprint":"\([0-9a-f]*\)".*/\1/p')
parts="$dir/reel-parts-$fingerprint"
sound="$dir/reel-sound-$(sha256sum < "$project" | cut -c1-16).mov"
mkdir -p "$parts"
job=$(sbatch --parsable --job-name=reel-chunks --array=0-$chunks --cpus-per-task=1 \
  --output="$parts/chunk-%a.log" \
  --wrap "if [ \$SLURM_ARRAY_TASK_ID -eq $chunks ]; then [ -e '$sound' ] || $reel render '$project' --chunk audio -o '$sound' -q; \
else [ -e '$parts'/part-\$SLURM_ARRAY_TASK_ID.mkv ] || $reel render '$project' --chunk \$SLURM_ARRAY_TASK_ID/$chunks -o '$parts'/part-\$SLURM_ARRAY_TASK_ID.mkv -q; fi")
part_files=""
for k in $(seq 0 $((chunks - 1))); do part_files="$part_files '$parts/part-$k.mkv'"; done
sbatch --parsable --job-name=reel-join --dependency=afterok:"$job" --kill-on-invalid-dep=yes \
  --output="$parts/join.log" \
  --wrap "$reel join '$project' $part_files '$sound' -o '$out' --force -q"
