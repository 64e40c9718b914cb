#!/usr/bin/env bash
# Renders every row of ROWS through TEMPLATE in SHARDS shards with GNU parallel, here or over ssh (docs/batch.md).
#
#   examples/parallel/render-rows.sh card.json people.csv 'out/{{id}}.mp4' 4 [SSHLOGINS]
#
# Shard K is reel batch --rows K/SHARDS with its own manifest (OUTDIR/manifest-K.jsonl) and --resume, so running
# the same command again redoes only the rows that are not done. SSHLOGINS (e.g. ':,host1,host2'; ':' is this
# machine) spreads the shards over machines that mount the template, its media and the output folder at the same
# paths. Every row is validated before any shard starts; the output folder is created first.
set -euo pipefail
if [ $# -lt 4 ]; then
  echo "usage: $0 TEMPLATE ROWS PATTERN SHARDS [SSHLOGINS]" >&2
  exit 64
fi
template=$1 rows=$2 pattern=$3 shards=$4 logins=${5:-:}
reel=${REEL:-reel}
dir=$(dirname "$pattern")
case $dir in *'{{'*) echo "$0: the pattern's folder ($dir) must not depend on a row" >&2; exit 64 ;; esac
mkdir -p "$dir" || { echo "$0: cannot create the output folder $dir" >&2; exit 73; }
"$reel" batch "$template" "$rows" -o "$pattern" --dry-run -q >/dev/null
seq 0 $((shards - 1)) | parallel --will-cite --sshlogin "$logins" --halt never --joblog "$dir/rows.log" \
  "$(printf '%q ' "$reel" batch "$template" "$rows" -o "$pattern" -j 1 --resume -q)" \
  --rows {}/"$shards" --manifest "$(printf '%q' "$dir")"/manifest-{}.jsonl
