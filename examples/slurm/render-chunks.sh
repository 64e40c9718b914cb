#!/usr/bin/env bash
# Renders PROJECT in N chunks and its audio part as a Slurm array job on shared storage, then joins them in a
# dependent job.
#
#   examples/slurm/render-chunks.sh /shared/edit.json 8 /shared/final.mp4
#
# The array has N + 1 tasks: tasks 0 … N-1 render one chunk each (--chunk $SLURM_ARRAY_TASK_ID/N), task N renders
# the audio part (--chunk audio: the whole timeline's audio, encoded once), so the join only copies packets. Each
# task uses one encoder thread, so a re-run of a failed task (sbatch --array=K …) gives the same bytes. The join
# runs only when every task succeeded; when one fails, Slurm cancels the join (--kill-on-invalid-dep) instead of
# leaving it pending forever. The project is validated and the output folder created before anything is submitted
# (Slurm cannot open a task's log in a missing folder). The project, its media and the output folder must be on
# storage every node mounts at the same path. Prints the array's and the join's job ids. docs/chunks.md.
set -euo pipefail
if [ $# -ne 3 ]; then
  echo "usage: $0 PROJECT CHUNKS OUT" >&2
  exit 64
fi
project=$1 chunks=$2 out=$3
reel=${REEL:-reel}
dir=$(dirname "$out")
mkdir -p "$dir" || { echo "$0: cannot create the output folder $dir" >&2; exit 73; }
[ -w "$dir" ] || { echo "$0: the output folder $dir is not writable" >&2; exit 73; }
"$reel" validate "$project"
q() { printf '%q' "$1"; }
job=$(sbatch --parsable --job-name=reel-chunks --array=0-$chunks --cpus-per-task=1 \
  --output="$dir/chunk-%a.log" \
  --wrap "if [ \$SLURM_ARRAY_TASK_ID -eq $chunks ]; then $(q "$reel") render $(q "$project") --chunk audio -o $(q "$dir/sound.mov") --force -q; \
else $(q "$reel") render $(q "$project") --chunk \$SLURM_ARRAY_TASK_ID/$chunks -o $(q "$dir")/part-\$SLURM_ARRAY_TASK_ID.mkv --force -q; fi")
echo "$job"
parts=""
for k in $(seq 0 $((chunks - 1))); do parts="$parts $(q "$dir/part-$k.mkv")"; done
sbatch --parsable --job-name=reel-join --dependency=afterok:"$job" --kill-on-invalid-dep=yes \
  --output="$dir/join.log" \
  --wrap "$(q "$reel") join $(q "$project") $parts $(q "$dir/sound.mov") -o $(q "$out") --force -q"
