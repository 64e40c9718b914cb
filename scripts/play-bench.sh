#!/usr/bin/env bash
# Measures `reel play` in real time (not a test): a 1080p30 project with a one-second dissolve and a title plays
# for 60 s at --scale 0.5 under Xvfb with SDL's dummy audio driver (which consumes sound at the real-time rate),
# and prints reel's --stats: frames shown, frames dropped, largest A/V drift, sound gaps.
#
#   scripts/play-bench.sh [REEL]        (REEL defaults to .build/release/reel; `make play-bench` builds it)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
reel=${1:-.build/release/reel}
command -v xvfb-run >/dev/null || { echo "play-bench: xvfb-run is missing (make deps installs xvfb)" >&2; exit 69; }

media=.bench/play
mkdir -p "$media"
# make_clip NAME SOURCE TONE_HZ: 31 s of 1080p30 H.264 (GOP 30, B-frames) with a stereo AAC tone.
make_clip() {
  local out="$media/$1.mp4"
  [[ -f "$out" ]] && return
  ffmpeg -v error -nostdin -y -f lavfi -i "$2=size=1920x1080:rate=30,format=yuv420p" \
    -f lavfi -i "sine=frequency=$3:sample_rate=48000,aformat=channel_layouts=stereo" -t 31 \
    -c:v libx264 -preset veryfast -crf 23 -g 30 -bf 2 -c:a aac -b:a 128k "$media/.$1.partial.mp4"
  mv "$media/.$1.partial.mp4" "$out"
}
make_clip a testsrc2 440
make_clip b smptehdbars 660

cat > "$media/play.json" <<'JSON'
{ "reel": 1,
  "output": { "path": "out.mp4", "size": [1920, 1080], "frameRate": 30 },
  "assets": { "a": { "path": "a.mp4" }, "b": { "path": "b.mp4" } },
  "timeline": { "clips": [
    { "asset": "a", "in": 0, "out": 30.5 },
    { "asset": "b", "in": 0, "out": 30.5, "transition": { "type": "dissolve", "duration": 1 } } ],
    "titles": [ { "text": "reel play", "start": 0, "duration": 60, "size": 96 } ] } }
JSON

echo "play-bench: $reel play $media/play.json --scale 0.5 --stats --script \"play 60s; quit\" (Xvfb, SDL_AUDIODRIVER=dummy)"
SDL_AUDIODRIVER=dummy xvfb-run -a -s "-screen 0 1280x720x24" \
  "$reel" play "$media/play.json" --scale 0.5 --stats --script "play 60s; quit"
