#!/usr/bin/env bash
# Renders every row of ROWS through TEMPLATE as a Slurm array of SHARDS tasks on shared storage (docs/batch.md).
#
#   examples/slurm/render-rows.sh /shared/card.json /shared/people.csv '/shared/out/{{id}}.mp4' 8
#
# Task K renders the rows n with (n - 1) mod SHARDS = K (reel batch --rows K/SHARDS), one render at a time, and
# keeps its own manifest (OUTDIR/manifest-K.jsonl) with --resume: re-running the same command redoes only the rows
# that are not done. Every row is validated here, before anything is submitted (reel batch --dry-run), so an
# invalid batch never starts an array. The output folder (the pattern's folder, which must not hold a {{…}}) is
# created first: Slurm cannot open a task's log in a missing folder. Prints the array's job id.
set -euo pipefail
if [ $# -ne 4 ]; then
  echo "usage: $0 TEMPLATE ROWS PATTERN SHARDS" >&2
  exit 64
fi
template=$1 rows=$2 pattern=$3 shards=$4
reel=${REEL:-reel}
dir=$(dirname "$pattern")
case $dir in *'{{'*) echo "$0: the pattern's folder ($dir) must not depend on a row" >&2; exit 64 ;; esac
mkdir -p "$dir" || { echo "$0: cannot create the output folder $dir" >&2; exit 73; }
[ -w "$dir" ] || { echo "$0: the output folder $dir is not writable" >&2; exit 73; }
"$reel" batch "$template" "$rows" -o "$pattern" --dry-run -q >/dev/null
command=$(printf '%q ' "$reel" batch "$template" "$rows" -o "$pattern" -j 1 --resume -q)
sbatch --parsable --job-name=reel-rows --array=0-$((shards - 1)) --cpus-per-task=1 \
  --output="$dir/rows-%a.log" \
  --wrap "$command --rows \$SLURM_ARRAY_TASK_ID/$shards --manifest $(printf '%q' "$dir")/manifest-\$SLURM_ARRAY_TASK_ID.jsonl"
