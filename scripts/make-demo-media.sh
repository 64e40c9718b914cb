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

# make_audio NAME SECONDS SOURCE: a 48 kHz stereo AAC file from a lavfi audio source.
make_audio() {
  local name=$1 seconds=$2 source=$3
  local out="$media/$name.m4a"
  if [[ -f "$out" ]]; then
    echo "make-demo-media: $out exists, kept"
    return
  fi
  local tmp="$media/.$name.partial.m4a"
  ffmpeg -v error -nostdin -y -f lavfi -i "$source" -t "$seconds" \
    -af "aformat=sample_rates=48000:channel_layouts=stereo" -c:a aac -b:a 128k "$tmp"
  mv "$tmp" "$out"
  echo "make-demo-media: wrote $out"
}

# A music bed (a soft A minor chord) and a "commentary" (a 200 Hz voice-like buzz that comes and goes).
make_audio music 12 "aevalsrc=0.2*sin(2*PI*220*t)+0.15*sin(2*PI*261.63*t)+0.15*sin(2*PI*329.63*t):s=48000"
make_audio commentary 6 "aevalsrc=0.5*sin(2*PI*200*t)*(0.6+0.4*sin(2*PI*3*t))*gt(sin(2*PI*0.5*t)+0.3\,0):s=48000"

# A logo with an alpha channel: a white ring on transparency.
if [[ ! -f "$media/logo.png" ]]; then
  ffmpeg -v error -nostdin -y -f lavfi -i "color=c=black@0:s=192x192,format=rgba" -frames:v 1 \
    -vf "geq=r=255:g=200:b=60:a='255*between(hypot(X-96\,Y-96)\,60\,88)*(1-0.6*between(X\,90\,102))'" \
    "$media/.logo.partial.png"
  mv "$media/.logo.partial.png" "$media/logo.png"
  echo "make-demo-media: wrote $media/logo.png"
fi


# A "presenter" in front of a green screen, for examples/overlays.json: a moving 240x300 picture on pure green.
if [[ ! -f "$media/presenter.mp4" ]]; then
  ffmpeg -v error -nostdin -y -f lavfi -i "color=c=0x00FF00:s=640x360:r=30:d=6" \
    -f lavfi -i "testsrc2=s=240x300:r=30:d=6" \
    -filter_complex "[0][1]overlay=x='200+40*sin(t)':y=60,format=yuv420p" \
    -c:v libx264 -preset veryfast -crf 18 -g 30 "$media/.presenter.partial.mp4"
  mv "$media/.presenter.partial.mp4" "$media/presenter.mp4"
  echo "make-demo-media: wrote $media/presenter.mp4"
fi
