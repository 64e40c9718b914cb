#!/usr/bin/env bash
# Renders PROJECT in N chunks and its audio part as a Slurm array job on shared storage, then joins them in a
# dependent job.
#
#   examples/slurm/render-chunks.sh /shared/edit.json 8 /shared/final.mp4
#
# The array has N + 1 tasks: tasks 0 … N-1 render one chunk each (--chunk $SLURM_ARRAY_TASK_ID/N), task N renders
# the audio part (--chunk audio: the whole timeline's audio, encoded once), so the join only copies packets. Each
# task uses one encoder thread, so a re-run of a failed task (sbatch --array=K …) gives the same bytes. The join
# runs only when every task succeeded. The project, its media and the output folder must be on storage every node
# mounts at the same path. docs/chunks.md.
set -euo pipefail
if [ $# -ne 3 ]; then
  echo "usage: $0 PROJECT CHUNKS OUT" >&2
  exit 64
fi
project=$1 chunks=$2 out=$3
reel=${REEL:-reel}
dir=$(dirname "$out")
job=$(sbatch --parsable --job-name=reel-chunks --array=0-$chunks --cpus-per-task=1 \
  --output="$dir/chunk-%a.log" \
  --wrap "if [ \$SLURM_ARRAY_TASK_ID -eq $chunks ]; then $reel render '$project' --chunk audio -o '$dir'/sound.mov --force -q; \
else $reel render '$project' --chunk \$SLURM_ARRAY_TASK_ID/$chunks -o '$dir'/part-\$SLURM_ARRAY_TASK_ID.mkv --force -q; fi")
parts=""
for k in $(seq 0 $((chunks - 1))); do parts="$parts '$dir/part-$k.mkv'"; done
sbatch --parsable --job-name=reel-join --dependency=afterok:"$job" --output="$dir/join.log" \
  --wrap "$reel join '$project' $parts '$dir/sound.mov' -o '$out' --force -q"
