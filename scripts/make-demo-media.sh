#!/usr/bin/env bash
# Generates the demo's source media into examples/media/ with the ffmpeg CLI
# from lavfi test sources. Files that already exist are kept, so this is cheap
# to run before every `make demo`.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

media=examples/media
mkdir -p "$media"

# make_clip NAME SECONDS VIDEO_SOURCE TONE_HZ
# 1280x720, 30 fps H.264 with a 48 kHz stereo AAC tone of the given pitch.
make_clip() {
  local name=$1 seconds=$2 video=$3 tone=$4
  local out="$media/$name.mp4"
  if [[ -f "$out" ]]; then
    echo "make-demo-media: $out exists, kept"
    return
  fi
  # Write beside the target and rename, so an interrupted run leaves no
  # truncated file that later runs would mistake for a finished one.
  local tmp="$media/.$name.partial.mp4"
  ffmpeg -v error -nostdin -y \
    -f lavfi -i "$video,format=yuv420p" \
    -f lavfi -i "sine=frequency=$tone:sample_rate=48000,aformat=channel_layouts=stereo" \
    -t "$seconds" \
    -c:v libx264 -preset veryfast -crf 20 -g 30 -pix_fmt yuv420p \
    -c:a aac -b:a 128k \
    -movflags +faststart \
    "$tmp"
  mv "$tmp" "$out"
  echo "make-demo-media: wrote $out"
}

make_clip bars   5 "smptebars=size=1280x720:rate=30"  440
make_clip pattern 6 "testsrc2=size=1280x720:rate=30"  660
make_clip fractal 4 "mandelbrot=size=1280x720:rate=30" 880
