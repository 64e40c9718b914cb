#!/usr/bin/env python3
"""Benchmark reel against the ffmpeg CLI doing the same work.

Each comparison case builds a reel project and an equivalent ffmpeg command
line over the same cached source media; some cases also render a simpler reel
project (the baseline) to show what their feature costs reel. Rounds
interleave the commands (rotating which goes first) and record every child's
wall time and user+sys CPU time from os.wait4. The tables show the medians,
the ratios reel / ffmpeg and reel / baseline, and each case's targets. A
second part measures reel's peak resident memory (ru_maxrss) for long
timelines, to show that it does not grow with timeline length.

Method and caveats: docs/benchmarks.md. Standard library only.
"""

import argparse
import hashlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
CACHE = REPO / ".bench"
MEDIA = CACHE / "media"
WORK = CACHE / "work"

WIDTH, HEIGHT, FPS = 1280, 720, 30
SOURCE_SECONDS = 10
SAMPLE_RATE, CHANNELS = 48000, 2
# Source keyframes every 2 s, so the trims below all fall between keyframes.
SOURCE_GOP = 60

# Encoder settings shared by both tools. AUDIO_BITRATE is bits per second in
# the reel project and "<kbps>k" for ffmpeg.
CRF = 23
ENCODER_PRESET = "veryfast"
AUDIO_BITRATE = 128_000

# (name, lavfi video source, tone in Hz); all 1280x720 at 30 fps.
SOURCES = [
    ("pattern", f"testsrc2=size={WIDTH}x{HEIGHT}:rate={FPS}", 440),
    ("fractal", f"mandelbrot=size={WIDTH}x{HEIGHT}:rate={FPS}", 550),
    ("gradient", f"gradients=size={WIDTH}x{HEIGHT}:rate={FPS}:speed=0.02", 660),
]

# (source name, in, out) in seconds; every point is on the 1/30 s frame grid
# and off the 2 s keyframe grid.
CUTS = [("pattern", 1.5, 9.5), ("fractal", 0.7, 8.2), ("gradient", 2.3, 9.9)]

# The transitions case: (reel type, ffmpeg xfade transition) into the 2nd and
# 3rd clip, each TRANSITION_SECONDS long. reel's push (direction left, the
# default) moves both pictures, the outgoing one out to the left and the
# incoming one in from the right; so does xfade's slideleft.
TRANSITIONS = [("dissolve", "fade"), ("push", "slideleft")]
TRANSITION_SECONDS = 1

# Audio-only sources for the audio-mix case: (name, lavfi source, seconds),
# AAC 48 kHz stereo in .m4a. The music bed is a slowly beating chord; the
# commentary is a pitch-wobbling tone chopped into syllable-like bursts
# (1.6 s on, 0.9 s off), so a level-driven ducker has something to follow.
AUDIO_SOURCES = [
    ("music", f"aevalsrc=exprs='0.2*sin(2*PI*220*t)+0.12*sin(2*PI*277.18*t)*(0.6+0.4*sin(2*PI*0.25*t))"
              f"|0.2*sin(2*PI*329.63*t)+0.12*sin(2*PI*220*t)*(0.6+0.4*cos(2*PI*0.25*t))'"
              f":sample_rate={SAMPLE_RATE}", 60),
    ("commentary", f"aevalsrc=exprs='0.5*sin(2*PI*(160*t+6*sin(2*PI*3*t)))*abs(sin(2*PI*2.5*t))*lt(mod(t,2.5),1.6)'"
                   f":channel_layout=stereo:sample_rate={SAMPLE_RATE}", 8),
]
# The music loops its first MUSIC_LOOP_SECONDS (so the 23.1 s timeline
# repeats it: 10 + 10 + 3.1 s) at MUSIC_VOLUME, ducked to DUCK_TO with
# DUCK_RAMP-second ramps while the commentary, placed at COMMENTARY_AT, plays.
MUSIC_LOOP_SECONDS = 10
MUSIC_VOLUME = 0.5
COMMENTARY_AT = 6
DUCK_TO = 0.2
DUCK_RAMP = 0.5


class BenchError(Exception):
    """A failure that ends the run with a message instead of a traceback."""


@dataclass
class Measurement:
    """One child process: wall seconds, user+sys CPU seconds, peak RSS in KiB."""

    wall: float
    cpu: float
    max_rss_kib: int


@dataclass
class Target:
    """A goal for one ratio: `against` is "ffmpeg" or "baseline"; met when wall and CPU ratios are below `limit`."""

    against: str
    limit: float
    strict: bool = False

    def text(self):
        return f"{'<' if self.strict else '<='} {self.limit:.2f}"

    def met(self, ratio):
        return ratio < self.limit if self.strict else ratio <= self.limit


@dataclass
class Comparison:
    """A case: the same work as a reel project and as an ffmpeg command line.

    A case may add a baseline: a simpler reel project over the same clips,
    rendered in the same rounds ("reel-base"), so the table can show what the
    case's feature costs reel itself. `ffmpeg_indicative` marks an ffmpeg
    side that does comparable but not identical work; a case without
    `ffmpeg_args` compares reel with its baseline only.
    """

    name: str
    description: str
    timeline_seconds: float
    reel_project: dict
    ffmpeg_args: list
    reel_output: Path
    ffmpeg_output: Path
    baseline_name: str = ""
    baseline_project: dict = None
    baseline_output: Path = None
    ffmpeg_indicative: bool = False
    targets: list = field(default_factory=list)
    results: dict = field(default_factory=lambda: {"reel": [], "ffmpeg": [], "reel-base": []})
    # More reel projects rendered in the same rounds, shown as ratios to the baseline: name -> (project, target).
    variants: dict = field(default_factory=dict)
    # The 1-minute load average before and after the timed rounds.
    load: tuple = None


# ---------------------------------------------------------------- processes


def measure(argv, label):
    """Runs argv to completion; returns its Measurement or raises BenchError with its stderr."""
    with tempfile.TemporaryFile() as errors:
        start = time.perf_counter()
        try:
            child = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=errors)
        except OSError as error:
            raise BenchError(f"{label}: cannot start {argv[0]}: {error}") from error
        _, status, usage = os.wait4(child.pid, 0)
        wall = time.perf_counter() - start
        # wait4 reaped the child; tell Popen so it does not wait again.
        child.returncode = os.waitstatus_to_exitcode(status)
        if child.returncode != 0:
            errors.seek(0)
            text = errors.read().decode("utf-8", "replace").strip()
            raise BenchError(f"{label} failed with exit code {child.returncode}:\n  {' '.join(map(str, argv))}\n{text}")
    return Measurement(wall=wall, cpu=usage.ru_utime + usage.ru_stime, max_rss_kib=usage.ru_maxrss)


def run_quietly(argv, label):
    """Runs a helper command (media generation, probing); returns its stdout."""
    result = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, text=True)
    if result.returncode != 0:
        raise BenchError(f"{label} failed:\n  {' '.join(map(str, argv))}\n{result.stderr.strip()}")
    return result.stdout


def probe_duration(path):
    """Container duration in seconds, as ffprobe reports it."""
    out = run_quietly(["ffprobe", "-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", str(path)],
                      f"ffprobe {path}")
    return float(out.strip())


def probe_video_duration(path):
    """The first video stream's duration in seconds: a clip's `out` may not pass it (the container's duration can be
    a few milliseconds longer where the sound's priming is counted)."""
    out = run_quietly(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "stream=duration",
                       "-of", "csv=p=0", str(path)], f"ffprobe {path}")
    return float(out.strip())


# ---------------------------------------------------------------- media


def source_path(name):
    return MEDIA / f"{name}.mp4"


def audio_source_path(name):
    return MEDIA / f"{name}.m4a"


def ensure_media():
    """Generates the cached sources that are missing: 10 s clips (H.264 + AAC 48 kHz stereo) and AAC audio files."""
    MEDIA.mkdir(parents=True, exist_ok=True)
    for name, source, seconds in AUDIO_SOURCES:
        target = audio_source_path(name)
        if target.exists():
            continue
        print(f"bench: generating {target.relative_to(REPO)}", flush=True)
        partial = target.with_name(f".{name}.partial.m4a")
        run_quietly([
            "ffmpeg", "-v", "error", "-nostdin", "-y",
            "-f", "lavfi", "-i", f"{source},aformat=channel_layouts=stereo",
            "-t", str(seconds), "-c:a", "aac", "-b:a", "128k", "-movflags", "+faststart", str(partial),
        ], f"generating {name}")
        partial.rename(target)
    for name, video, tone in SOURCES:
        target = source_path(name)
        if target.exists():
            continue
        print(f"bench: generating {target.relative_to(REPO)}", flush=True)
        partial = target.with_name(f".{name}.partial.mp4")
        run_quietly([
            "ffmpeg", "-v", "error", "-nostdin", "-y",
            "-f", "lavfi", "-i", f"{video},format=yuv420p",
            "-f", "lavfi", "-i", f"sine=frequency={tone}:sample_rate={SAMPLE_RATE},aformat=channel_layouts=stereo",
            "-t", str(SOURCE_SECONDS),
            "-c:v", "libx264", "-preset", "medium", "-crf", "20", "-g", str(SOURCE_GOP),
            "-sc_threshold", "0", "-pix_fmt", "yuv420p",
            "-c:a", "aac", "-b:a", "128k", "-movflags", "+faststart", str(partial),
        ], f"generating {name}")
        partial.rename(target)


# The smart-render part: ten 3 s cuts of a 1080p H.264 (or, with `--smart-codec hevc`, HEVC: libx265 with open
# GOPs and a B-pyramid) source at non-keyframe points, rendered by `reel render --smart` and by reel's own full
# re-encode of the same project, in the same rounds. The source has a keyframe every `--smart-gop` frames
# (default 30: 1 s), BT.709 tags (so reel may copy it) and AAC audio.
SMART_WIDTH, SMART_HEIGHT = 1920, 1080
SMART_SOURCE_SECONDS = 40
# (in, out) seconds: starts at 1.1 + 3.6 k s (frames 33 + 108 k), all off the 1 s keyframe grid and on the 1/30 s
# frame grid.
SMART_CUTS = [(round(1.1 + 3.6 * k, 1), round(4.1 + 3.6 * k, 1)) for k in range(10)]
# Issue 25's target: smart CPU at most this many times the share of frames no smart render avoids re-encoding.
SMART_BOUND_FACTOR = 1.25


def smart_source_path(gop, codec="h264"):
    if codec == "hevc":
        return MEDIA / f"smart-1080p-hevc-gop{gop}.mp4"
    return MEDIA / ("smart-1080p.mp4" if gop == 30 else f"smart-1080p-gop{gop}.mp4")


def smart_video_encoder(gop, codec):
    """The source's video encoder options: x264 `fast`, or x265 `fast` with open GOPs (CRA pictures followed by
    RASL pictures) and a B-pyramid, as phones and x265's defaults make them."""
    if codec == "hevc":
        return ["-c:v", "libx265", "-preset", "ultrafast", "-crf", "22", "-tag:v", "hvc1", "-x265-params",
                f"keyint={gop}:min-keyint={gop}:scenecut=0:open-gop=1:bframes=4:b-pyramid=1:log-level=error"]
    return ["-c:v", "libx264", "-preset", "fast", "-crf", "20", "-g", str(gop), "-sc_threshold", "0"]


def ensure_smart_media(gop, codec="h264"):
    """Generates the cached 1080p source of the smart-render part when it is missing."""
    MEDIA.mkdir(parents=True, exist_ok=True)
    target = smart_source_path(gop, codec)
    if target.exists():
        return
    print(f"bench: generating {target.relative_to(REPO)}", flush=True)
    partial = target.with_name(f".{target.stem}.partial.mp4")
    run_quietly([
        "ffmpeg", "-v", "error", "-nostdin", "-y",
        "-f", "lavfi", "-i", f"testsrc2=size={SMART_WIDTH}x{SMART_HEIGHT}:rate={FPS},format=yuv420p",
        "-f", "lavfi", "-i", f"sine=frequency=440:sample_rate={SAMPLE_RATE},aformat=channel_layouts=stereo",
        "-t", str(SMART_SOURCE_SECONDS),
        *smart_video_encoder(gop, codec),
        "-pix_fmt", "yuv420p", "-colorspace", "bt709", "-color_primaries", "bt709", "-color_trc", "bt709",
        "-color_range", "tv",
        "-c:a", "aac", "-b:a", "128k", "-movflags", "+faststart", str(partial),
    ], "generating the smart-render source")
    partial.rename(target)


def smart_project(output, smart, gop, codec="h264"):
    return {
        "reel": 1,
        "output": {
            "path": str(output), "size": [SMART_WIDTH, SMART_HEIGHT], "frameRate": FPS,
            "video": {"codec": codec, "crf": CRF, "encoderPreset": ENCODER_PRESET, "smart": smart},
            "audio": {"codec": "aac", "bitrate": AUDIO_BITRATE, "sampleRate": SAMPLE_RATE, "channels": CHANNELS},
        },
        "assets": {"src": {"path": str(smart_source_path(gop, codec))}},
        "timeline": {"clips": [{"asset": "src", "in": start, "out": end} for start, end in SMART_CUTS]},
    }


def smart_report(reel, project):
    """The smart render's own report of `project` (`--progress json`): frames in all, frames copied, and its spans."""
    result = subprocess.run([str(reel), "render", str(project), "--force", "--progress", "json",
                             "-o", str(WORK / "smart-report.mp4")], capture_output=True, text=True)
    for line in result.stderr.splitlines():
        if line.startswith('{"smart"'):
            report = json.loads(line)["smart"]
            return report["frames"], report["copied"], report.get("spans") or []
    raise SystemExit(f"bench: reel render --smart printed no report: {result.stderr.strip()}")


def smart_floor_pieces(spans):
    """The re-encoded spans of the smart report, split at the clips' edges: (source start frame, frame count, whether
    the piece starts a re-encoded stretch). A stretch's first picture cannot refer to the copied pictures before it,
    so it is an intra picture; a piece that continues a stretch across a clip's edge is not."""
    clip_frames = [round(end * FPS) - round(start * FPS) for start, end in SMART_CUTS]
    starts = [sum(clip_frames[:k]) for k in range(len(clip_frames))]
    pieces = []
    for span in spans:
        if span["copied"]:
            continue
        first_of_span = True
        for k, (clip_start, count) in enumerate(zip(starts, clip_frames)):
            lower, upper = max(span["start"], clip_start), min(span["end"], clip_start + count)
            if lower < upper:
                pieces.append((round(SMART_CUTS[k][0] * FPS) + lower - clip_start, upper - lower, first_of_span))
                first_of_span = False
    return pieces


def smart_floor(gop, codec, spans):
    """The CPU seconds the ffmpeg CLI needs for only the work no exact smart render avoids: decoding each re-encoded
    piece from the random-access picture before it (an input of its own, opened with an accurate `-ss` and read for
    the piece's length) and encoding all the pieces, joined, through one encoder with the full render's settings and
    an IDR picture where each re-encoded stretch starts; plus decoding and encoding the timeline's audio once
    (aac_copy_alignment says why it cannot be copied). Each process's start-up cost is taken off. The same video
    work is also measured with and without the forced IDR pictures, scene cuts off in both, to price them. Returns a
    dict: seconds, pieces, stretches, intra (the IDR pictures' price), audio, lead_in (pictures decoded before the
    pieces), per_decode (seconds to decode one picture)."""
    source = smart_source_path(gop, codec)
    encoder = ["-c:v", "libx264"] if codec == "h264" else ["-c:v", "libx265", "-x265-params", "log-level=error"]
    settings = [*encoder, "-preset", ENCODER_PRESET, "-crf", str(CRF), "-pix_fmt", "yuv420p", "-f", "null", "-"]
    startup = sorted(measure(["ffmpeg", "-nostdin", "-v", "error", "-f", "lavfi", "-i",
                              f"color=c=black:s=64x64:r={FPS}", "-frames:v", "1", *settings],
                             "ffmpeg start-up").cpu for _ in range(3))[1]
    pieces = smart_floor_pieces(spans)
    inputs, chains, key_times, position = [], [], [], 0
    for index, (first, count, starts_stretch) in enumerate(pieces):
        inputs += ["-ss", f"{max(0.0, first / FPS - 0.001):.4f}", "-t", f"{(count + 1) / FPS:.4f}", "-i", str(source)]
        chains.append(f"[{index}:v]trim=end_frame={count},setpts=PTS-STARTPTS[v{index}]")
        if starts_stretch:
            key_times.append(f"{position / FPS:.6f}")
        position += count
    graph = ";".join(chains) + ";" + "".join(f"[v{index}]" for index in range(len(pieces))) + \
        f"concat=n={len(pieces)}:v=1:a=0[out]"
    pieces_command = ["ffmpeg", "-nostdin", "-v", "error", *inputs, "-filter_complex", graph, "-map", "[out]",
                      "-fps_mode", "passthrough"]
    video = measure([*pieces_command, "-forced-idr", "1", "-force_key_frames", ",".join(key_times), *settings],
                    "smart floor video").cpu - startup
    # The IDR pictures' price: the same encode with and without them, both with scene-cut detection off, which
    # would otherwise put intra pictures at the joins of the pieces by itself and hide the price.
    no_scene_cuts = ["-sc_threshold", "0"] if codec == "h264" else \
        ["-c:v", "libx265", "-x265-params", "log-level=error:scenecut=0"]
    priced = [*settings[:-3], *no_scene_cuts, *settings[-3:]]
    forced = measure([*pieces_command, "-forced-idr", "1", "-force_key_frames", ",".join(key_times), *priced],
                     "smart floor video, IDR pictures, no scene cuts").cpu
    unforced = measure([*pieces_command, *priced], "smart floor video, no IDR pictures, no scene cuts").cpu
    seconds = sum(end - start for start, end in SMART_CUTS)
    audio = measure(["ffmpeg", "-nostdin", "-v", "error", "-i", str(source), "-t", str(seconds), "-vn",
                     "-c:a", "aac", "-b:a", str(AUDIO_BITRATE), "-ar", str(SAMPLE_RATE), "-f", "null", "-"],
                    "smart floor audio").cpu - startup
    # The same work taken apart: what decoding one picture costs (the whole source decoded, no encoder), so that the
    # pictures decoded before each piece (from the random-access picture at or before it; an upper bound, as
    # pictures nothing refers to need not be decoded) can be priced.
    frames_in_source = SMART_SOURCE_SECONDS * FPS
    decode = measure(["ffmpeg", "-nostdin", "-v", "error", "-i", str(source), "-an", "-f", "null", "-"],
                     "smart floor decode").cpu - startup
    return {"seconds": video + audio, "pieces": len(pieces), "stretches": len(key_times),
            "intra": max(0.0, forced - unforced), "audio": audio,
            "lead_in": sum(first % gop for first, _, _ in pieces), "per_decode": decode / frames_in_source}


def aac_copy_alignment():
    """How many clips could have their AAC packets copied sample-exactly: a copied packet keeps its 1024-sample
    frame, so the clip's source start and its place in the output must sit at the same offset in that grid."""
    aligned, place = 0, 0
    for start, end in SMART_CUTS:
        if (round(start * SAMPLE_RATE) - place) % 1024 == 0:
            aligned += 1
        place += round((end - start) * SAMPLE_RATE)
    return aligned


def run_smart(reel, rounds, warmup, gop, codec="h264"):
    """Smart render against reel's full re-encode of the same ten cuts; prints medians, the CPU ratio and the bound."""
    ensure_smart_media(gop, codec)
    smart_project_path = write_project(smart_project(WORK / "smart-smart.mp4", True, gop, codec), "smart-smart")
    full_project = smart_project(WORK / "smart-full.mp4", False, gop, codec)
    commands = {
        "full": reel_render_args(reel, write_project(full_project, "smart-full")),
        "smart": reel_render_args(reel, smart_project_path),
    }
    label = "HEVC" if codec == "hevc" else "H.264"
    print(f"\n== smart: {len(SMART_CUTS)} cuts of 3 s from a {SMART_WIDTH}x{SMART_HEIGHT} {label} source "
          f"(keyframe every {gop} frames), cut between keyframes; reel --smart vs reel's full re-encode",
          flush=True)
    results = {"full": [], "smart": []}
    for _ in range(warmup):
        for tool in commands:
            measure(commands[tool], f"smart warm-up ({tool})")
    for round_index in range(rounds):
        order = list(commands) if round_index % 2 == 0 else list(reversed(commands))
        for tool in order:
            result = measure(commands[tool], f"smart round {round_index + 1} ({tool})")
            results[tool].append(result)
            print(f"   round {round_index + 1} {tool:6} wall {result.wall:7.2f} s  cpu {result.cpu:7.2f} s", flush=True)
    smart, full = medians(results["smart"]), medians(results["full"])
    wall_ratio, cpu_ratio = smart[0] / full[0], smart[1] / full[1]
    # What no smart render can avoid: re-encoding from each cut to the source's next keyframe (the pictures there
    # refer to ones before the cut). Arithmetic on the cut list, ffprobe-free.
    unavoidable = sum(min(-round(start * FPS) % gop, round(end * FPS) - round(start * FPS)) for start, end in SMART_CUTS)
    frames, copied, spans = smart_report(reel, smart_project_path)
    reencoded = frames - copied
    bound = unavoidable / frames
    target = SMART_BOUND_FACTOR * bound
    print(f"\n{'':12} {'smart':>9} {'full':>9} {'ratio':>7}   target")
    print(f"{'wall s':12} {smart[0]:9.2f} {full[0]:9.2f} {wall_ratio:7.3f}")
    verdict_text = "met" if cpu_ratio <= target else "missed"
    print(f"{'cpu s':12} {smart[1]:9.2f} {full[1]:9.2f} {cpu_ratio:7.3f}   <= {target:.3f} "
          f"({SMART_BOUND_FACTOR} x the bound {bound:.3f})  {verdict_text}")
    print(f"re-encoded frames (reel's report): {reencoded} of {frames} ({reencoded / frames:.1%}); "
          f"from the cuts to the next keyframe alone, which no smart render avoids: {unavoidable} ({unavoidable / frames:.1%})")
    # The measured floor: the ffmpeg CLI doing only what an exact smart render must do (the report's re-encoded
    # pictures, which include the B-frames before a cut that refer past it, the reference pictures decoded before
    # each, and the audio), against which reel's smart render is compared in the same run.
    floor = smart_floor(gop, codec, spans)
    # The bound with everything exactness forces: the frames the report re-encodes (all of them forced here: the
    # pictures from a cut to the next random-access picture, and the B-frames before a cut that refer past it), each
    # at a full render's cost per frame; an intra picture where each re-encoded stretch starts (it cannot refer to
    # the copied pictures before it), at what forcing them costs the ffmpeg CLI; the pictures decoded before each
    # re-encoded piece at the cost of a decode; the audio, which cannot be copied.
    reencode_share = reencoded / frames
    intra_share = floor["intra"] / full[1]
    lead_in_share = floor["lead_in"] * floor["per_decode"] / full[1]
    audio_share = floor["audio"] / full[1]
    exact = reencode_share + intra_share + lead_in_share + audio_share
    print(f"exact bound: re-encoded {reencode_share:.3f} + IDR pictures at the {floor['stretches']} stretch starts "
          f"({intra_share:.3f}) + {floor['lead_in']} pictures decoded before the pieces ({lead_in_share:.3f}, at "
          f"{floor['per_decode'] * 1000:.1f} ms each) + audio ({audio_share:.3f}) = {exact:.3f}; smart / full "
          f"{cpu_ratio:.3f} <= {SMART_BOUND_FACTOR} x {exact:.3f} = {SMART_BOUND_FACTOR * exact:.3f}: "
          f"{'met' if cpu_ratio <= SMART_BOUND_FACTOR * exact else 'missed'}")
    print(f"the ffmpeg CLI doing only that work (one process decoding the {floor['pieces']} re-encoded pieces from "
          f"their random-access pictures and encoding them through one encoder with an IDR picture at each stretch's "
          f"start, one for the audio): {floor['seconds']:.2f} s CPU = {floor['seconds'] / full[1]:.3f} of the full "
          f"render; reel --smart / that: {smart[1] / floor['seconds']:.2f}")
    print(f"clips whose AAC packets could be copied sample-exactly (source start and output place at the same "
          f"offset in the 1024-sample frame grid): {aac_copy_alignment()} of {len(SMART_CUTS)}")
    for name in ("smart-full.mp4", "smart-smart.mp4"):
        print(f"   {name} duration: {probe_duration(WORK / name):.3f} s", flush=True)
    return results


EFFECTS_WIDTH, EFFECTS_HEIGHT, EFFECTS_SECONDS = 1920, 1080, 5


def ensure_effects_media():
    """A 1080p30 H.264 source tagged BT.709 and a 33-point .cube LUT, made once."""
    source = MEDIA / f"effects-{EFFECTS_WIDTH}x{EFFECTS_HEIGHT}-{EFFECTS_SECONDS}s.mp4"
    if not source.exists():
        MEDIA.mkdir(parents=True, exist_ok=True)
        run_quietly(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i",
                     f"testsrc2=size={EFFECTS_WIDTH}x{EFFECTS_HEIGHT}:rate={FPS}:duration={EFFECTS_SECONDS}",
                     "-pix_fmt", "yuv420p", "-colorspace", "bt709", "-color_primaries", "bt709", "-color_trc", "bt709",
                     "-c:v", "libx264", "-preset", "veryfast", "-crf", "18", "-g", str(SOURCE_GOP), str(source)],
                    "effects source")
    lut = MEDIA / "effects-look.cube"
    if not lut.exists():
        size = 33
        rows = [f"{min(1.0, r / 32 * 1.08 + 0.01):.6f} {(g / 32) ** 0.9:.6f} {b / 32 * 0.85:.6f}"
                for b in range(size) for g in range(size) for r in range(size)]
        lut.write_text(f"LUT_3D_SIZE {size}\n" + "\n".join(rows) + "\n")
    return source, lut


def effects_project(output, source, effects):
    return {
        "reel": 1,
        "output": {"path": str(output), "size": [EFFECTS_WIDTH, EFFECTS_HEIGHT], "frameRate": FPS,
                   "video": {"codec": "h264", "crf": CRF, "encoderPreset": ENCODER_PRESET}, "audio": False},
        "assets": {"a": {"path": str(source)}},
        "timeline": {"clips": [{"asset": "a", "effects": effects}]},
    }


def timed_rounds(commands, rounds, warmup, part):
    """Runs every command of `commands` (name -> argv) `warmup` times untimed, then `rounds` times timed, starting
    each round at the next command so that no command always runs first; prints each measurement and returns them
    by name."""
    results = {name: [] for name in commands}
    for _ in range(warmup):
        for name in commands:
            measure(commands[name], f"{part} warm-up ({name})")
    before = os.getloadavg()[0]
    for round_index in range(rounds):
        order = list(commands)[round_index % len(commands):] + list(commands)[:round_index % len(commands)]
        for name in order:
            result = measure(commands[name], f"{part} round {round_index + 1} ({name})")
            results[name].append(result)
            print(f"   round {round_index + 1} {name:12} wall {result.wall:7.2f} s  cpu {result.cpu:7.2f} s", flush=True)
    print(f"   load average (1 min): {before:.2f} before the rounds, {os.getloadavg()[0]:.2f} after", flush=True)
    return results


def run_effects(reel, rounds, warmup):
    """The cost of effects (docs/effects.md): a 1080p render with a LUT on every frame, with a blurred region and
    with a chroma key, as ratios to the same render without them. Prints medians; returns every measurement."""
    source, lut = ensure_effects_media()
    variants = {
        "none": [],
        "lut": [{"type": "lut", "file": str(lut)}],
        "blur region": [{"type": "blur", "radius": 12, "rect": [600, 300, 480, 270]}],
        # A key makes the layer yuva420p: chromakey plus the compositor's per-pixel blend over the background.
        "chroma key": [{"type": "chromaKey", "color": "#00FF00", "similarity": 0.3, "blend": 0.1}],
    }
    commands = {name: reel_render_args(reel, write_project(
        effects_project(WORK / f"effects-{index}.mp4", source, effects), f"effects-{index}"))
        for index, (name, effects) in enumerate(variants.items())}
    print(f"\n== effects: {EFFECTS_SECONDS} s of {EFFECTS_WIDTH}x{EFFECTS_HEIGHT} at {FPS} fps, "
          "reel with effects vs reel without", flush=True)
    results = timed_rounds(commands, rounds, warmup, "effects")
    base = medians(results["none"])
    print(f"\n{'':14} {'wall s':>8} {'cpu s':>8} {'wall ratio':>11} {'cpu ratio':>10} {'paired wall':>12} "
          f"{'paired cpu':>11}")
    for name in commands:
        wall, cpu = medians(results[name])
        paired_wall, paired_cpu = paired_ratios(results[name], results["none"])
        print(f"{name:12} {wall:8.2f} {cpu:8.2f} {wall / base[0]:11.3f} {cpu / base[1]:10.3f} {paired_wall:12.3f} "
              f"{paired_cpu:11.3f}")
    return results


LAYERS_WIDTH, LAYERS_HEIGHT = 640, 360
# Uses of one lower third in the layers part, each USE_SECONDS long (issue 38 point 5: a lower third per speaker).
USES, USE_SECONDS = 20, 2
LOWER_THIRD = {"size": [400, 80], "shape": {"type": "rectangle", "size": [380, 64], "cornerRadius": 12, "fill": "#1E3A8AE0"}}


def layers_projects(source):
    """(name, project, extra files) of the layers part: a video under 20 lower thirds, each a composition file used as
    a video overlay (its title's name set by the asset's `with`), against the same title and shape written inline 20
    times; and a matted overlay (a luma track matte) against the same overlay without it."""
    output = {"size": [LAYERS_WIDTH, LAYERS_HEIGHT], "frameRate": FPS,
              "video": {"codec": "h264", "crf": CRF, "encoderPreset": ENCODER_PRESET}, "audio": False}
    seconds = USES * USE_SECONDS
    clip = {"asset": "video", "duration": seconds}
    width, height = LOWER_THIRD["size"]
    # A child's picture is opaque (its background where nothing covers it): the inline form draws that box too.
    child = {"reel": 1, "output": {"path": "unused.mp4", "size": [width, height], "frameRate": FPS, "background": "#000000"},
             "variables": {"name": {"type": "string", "default": "Speaker"}},
             "assets": {},
             "timeline": {"clips": [{"gap": USE_SECONDS}],
                          "overlays": [{"shape": LOWER_THIRD["shape"], "start": 0, "duration": USE_SECONDS}],
                          "titles": [{"text": "{{name}}", "size": 36, "start": 0, "duration": USE_SECONDS}]}}
    place = [0.35, 0.85]
    nested = {"reel": 1, "output": {**output, "path": str(WORK / "layers-nested.mp4")},
              "assets": {"video": {"path": str(source)},
                         **{f"lt{i}": {"composition": "layers-lower-third.json", "with": {"name": f"Speaker {i + 1}"}}
                            for i in range(USES)}},
              "timeline": {"clips": [clip],
                           "overlays": [{"video": f"lt{i}", "start": i * USE_SECONDS, "position": place}
                                        for i in range(USES)]}}
    inline = {"reel": 1, "output": {**output, "path": str(WORK / "layers-inline.mp4")},
              "assets": {"video": {"path": str(source)}},
              "timeline": {"clips": [clip],
                           "overlays": [layer for i in range(USES) for layer in (
                               {"shape": {"type": "rectangle", "size": [width, height], "fill": "#000000"},
                                "start": i * USE_SECONDS, "duration": USE_SECONDS, "position": place},
                               {"shape": LOWER_THIRD["shape"], "start": i * USE_SECONDS, "duration": USE_SECONDS,
                                "position": place})],
                           "titles": [{"text": f"Speaker {i + 1}", "size": 36, "start": i * USE_SECONDS,
                                       "duration": USE_SECONDS, "position": place} for i in range(USES)]}}
    # The matte case: a picture-in-picture overlay cut by a moving luma matte (a white disc on black) against the
    # same overlay uncut.
    matte = {"video": "matte", "start": 0, "size": [LAYERS_WIDTH, LAYERS_HEIGHT]}
    overlay = {"video": "video", "start": 0, "in": 1, "duration": seconds, "size": [320, 180], "position": [0.7, 0.35]}
    matted = {"reel": 1, "output": {**output, "path": str(WORK / "layers-matted.mp4")},
              "assets": {"video": {"path": str(source)}, "matte": {"path": str(MEDIA / "layers-matte.mp4")}},
              "timeline": {"clips": [clip], "overlays": [{**overlay, "mask": {"track": 1, "channel": "luma"}}, matte]}}
    plain = {"reel": 1, "output": {**output, "path": str(WORK / "layers-plain.mp4")},
             "assets": {"video": {"path": str(source)}},
             "timeline": {"clips": [clip], "overlays": [overlay]}}
    # The same lower third 20 times (one `with` for every use): the uses share its rasters and render core.
    same_nested = {**nested, "output": {**output, "path": str(WORK / "layers-same-nested.mp4")},
                   "assets": {"video": {"path": str(source)},
                              "lt": {"composition": "layers-lower-third.json", "with": {"name": "Speaker"}}},
                   "timeline": {"clips": [clip], "overlays": [{"video": "lt", "start": i * USE_SECONDS, "position": place}
                                                              for i in range(USES)]}}
    same_inline = json.loads(json.dumps(inline).replace("layers-inline.mp4", "layers-same-inline.mp4"))
    for title in same_inline["timeline"]["titles"]:
        title["text"] = "Speaker"
    return [("20 nested", nested, {"layers-lower-third.json": child}), ("20 inline", inline, {}),
            ("20 same nested", same_nested, {}), ("20 same inline", same_inline, {}),
            ("matted", matted, {}), ("unmatted", plain, {})]


def run_layers(reel, rounds, warmup):
    """The cost of nested compositions and track mattes (issue 38 point 5): 20 uses of one lower-third composition
    against its layers written inline 20 times, and a matted overlay against the same overlay without the matte, as
    CPU ratios. Prints medians; returns every measurement."""
    seconds = USES * USE_SECONDS
    source = MEDIA / f"layers-{LAYERS_WIDTH}x{LAYERS_HEIGHT}-{seconds}s.mp4"
    matte = MEDIA / "layers-matte.mp4"
    MEDIA.mkdir(parents=True, exist_ok=True)
    WORK.mkdir(parents=True, exist_ok=True)
    if not source.exists():
        run_quietly(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i",
                     f"testsrc2=size={LAYERS_WIDTH}x{LAYERS_HEIGHT}:rate={FPS}:duration={seconds + 1}",
                     "-pix_fmt", "yuv420p", "-c:v", "libx264", "-preset", "veryfast", "-crf", "18", "-g", str(SOURCE_GOP),
                     str(source)], "layers source")
    if not matte.exists():
        run_quietly(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i",
                     f"color=black:s={LAYERS_WIDTH}x{LAYERS_HEIGHT}:r={FPS}:d={seconds},format=gray,"
                     f"geq=lum='255*lte(pow(X-{LAYERS_WIDTH * 0.7}-60*sin(T),2)+pow(Y-{LAYERS_HEIGHT * 0.35},2),6400)'",
                     "-pix_fmt", "yuv420p", "-c:v", "libx264", "-preset", "veryfast", "-crf", "18", str(matte)], "layers matte")
    commands = {}
    for name, project, files in layers_projects(source):
        for file, child in files.items():
            (WORK / file).write_text(json.dumps(child, indent=2) + "\n")
        commands[name] = reel_render_args(reel, write_project(project, "layers-" + name.replace(" ", "-")))
    print(f"\n== layers: {seconds} s of {LAYERS_WIDTH}x{LAYERS_HEIGHT} at {FPS} fps; {USES} uses of a lower-third "
          f"composition vs its layers inline, a track-matted overlay vs the overlay alone", flush=True)
    results = timed_rounds(commands, rounds, warmup, "layers")
    print(f"\n{'':14} {'wall s':>8} {'cpu s':>8} {'cpu ratio':>10}")
    for name, base in (("20 nested", "20 inline"), ("20 inline", "20 inline"), ("20 same nested", "20 same inline"),
                       ("20 same inline", "20 same inline"), ("matted", "unmatted"), ("unmatted", "unmatted")):
        wall, cpu = medians(results[name])
        print(f"{name:14} {wall:8.2f} {cpu:8.2f} {cpu / medians(results[base])[1]:10.3f}  (vs {base})")
    return results


def ensure_talk_media(seconds):
    """A mono 48 kHz speech-like talk (noise in syllables over hiss and hum) of `seconds`, as FLAC, made once."""
    talk = MEDIA / f"talk-{seconds}s.flac"
    if not talk.exists():
        MEDIA.mkdir(parents=True, exist_ok=True)
        voice = ("0.25*(random(0)*2-1)*max(0,sin(2*PI*3.3*t))*gt(sin(2*PI*0.23*t),-0.4)"
                 "+0.01*(random(1)*2-1)+0.02*sin(2*PI*50*t)")
        run_quietly(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", f"aevalsrc='{voice}':s=48000:d={seconds}",
                     "-af", "lowpass=6000", "-c:a", "flac", str(talk)], "talk source")
    return talk


def run_audio_effects(reel, rounds, warmup, seconds):
    """The cost of audio effects (docs/effects.md, "Audio effects"): the voice preset on a long mono talk, as the
    extra CPU over the same sound-only render without it, against a 1080p30 re-encode of a video as long as the
    talk. The 1080p render is measured on the effects part's 5 s source and scaled to the talk's length (its cost is
    linear in frames), so that the comparison does not need an hour of 1080p video. Issue 37's target: ≤ 5 %."""
    talk = ensure_talk_media(seconds)
    video, _ = ensure_effects_media()

    def talk_project(output, effects):
        return {"reel": 1,
                "output": {"path": str(output), "size": [64, 36], "frameRate": FPS, "end": seconds,
                           "audio": {"sampleRate": 48000, "channels": 1}},
                "assets": {"talk": {"path": str(talk)}},
                "timeline": {"clips": [], "audio": [{"id": "talk", "asset": "talk", "effects": effects}]}}
    commands = {
        "talk plain": reel_render_args(reel, write_project(talk_project(WORK / "talk-plain.wav", []), "talk-plain")),
        "talk voice": reel_render_args(reel, write_project(talk_project(WORK / "talk-voice.wav", [{"preset": "voice"}]),
                                                           "talk-voice")),
        "1080p 5 s": reel_render_args(reel, write_project(effects_project(WORK / "talk-video.mp4", video, []), "talk-video")),
    }
    print(f"\n== audio effects: the voice preset on {seconds} s of mono talk vs a 1080p re-encode as long", flush=True)
    results = timed_rounds(commands, rounds, warmup, "audio effects")
    plain, voice, picture = (medians(results[name]) for name in commands)
    chain_cpu = voice[1] - plain[1]
    picture_cpu = picture[1] / EFFECTS_SECONDS * seconds
    print(f"\nvoice chain: {chain_cpu:.2f} s cpu for {seconds} s of sound ({chain_cpu / seconds * 3600:.1f} s per hour); "
          f"1080p re-encode of {seconds} s: {picture_cpu:.1f} s cpu (scaled from {EFFECTS_SECONDS} s); "
          f"ratio {chain_cpu / picture_cpu * 100:.2f} % (target ≤ 5 %)")
    return results


# The renditions part (docs/outputs.md): the CUTS project written at 1280x720, 640x360 and 320x180 (h264 + aac)
# in one render with `outputs`, against three separate renders of the same project, one size each. Target: the
# one pass costs at most one render plus the extra encodes and scales, i.e. clearly less than the three renders;
# printed as ratios of the one pass to the sum of the three and to the 1280x720 render alone.
RENDITION_SIZES = [(WIDTH, HEIGHT), (640, 360), (320, 180)]


def renditions_projects():
    """(the one-pass project, [the separate projects]) over the CUTS."""
    def output(size, index):
        settings = reel_output_settings(WORK / f"renditions-{size[0]}x{size[1]}-{index}.mp4", ENCODER_PRESET)
        settings["size"] = list(size)
        return settings
    together = reel_project(CUTS, WORK / "unused.mp4")
    together["output"] = output(RENDITION_SIZES[0], "together")
    together["outputs"] = [output(size, "together") for size in RENDITION_SIZES[1:]]
    separate = []
    for size in RENDITION_SIZES:
        project = reel_project(CUTS, WORK / "unused.mp4")
        project["output"] = output(size, "alone")
        separate.append(project)
    return together, separate


def run_renditions(reel, rounds, warmup):
    """Three renditions in one pass against three separate renders; prints medians and ratios, returns every
    measurement."""
    together, separate = renditions_projects()
    commands = {"one pass": reel_render_args(reel, write_project(together, "renditions-together"))}
    for (width, height), project in zip(RENDITION_SIZES, separate):
        commands[f"{width}x{height}"] = reel_render_args(reel, write_project(project, f"renditions-{width}x{height}"))
    sizes = ", ".join(f"{w}x{h}" for w, h in RENDITION_SIZES)
    print(f"\n== renditions: the cuts at {sizes} in one render (outputs) vs three separate renders", flush=True)
    results = timed_rounds(commands, rounds, warmup, "renditions")
    one = medians(results["one pass"])
    singles = [medians(results[f"{w}x{h}"]) for w, h in RENDITION_SIZES]
    total = (sum(m[0] for m in singles), sum(m[1] for m in singles))
    print(f"\n{'':22} {'wall s':>8} {'cpu s':>8}")
    for (width, height), m in zip(RENDITION_SIZES, singles):
        print(f"{f'{width}x{height} alone':22} {m[0]:8.2f} {m[1]:8.2f}")
    print(f"{'three separate (sum)':22} {total[0]:8.2f} {total[1]:8.2f}")
    print(f"{'one pass':22} {one[0]:8.2f} {one[1]:8.2f}")
    print(f"one pass / three separate: wall {one[0] / total[0]:.3f}, cpu {one[1] / total[1]:.3f}")
    print(f"one pass / largest alone:  wall {one[0] / singles[0][0]:.3f}, cpu {one[1] / singles[0][1]:.3f}")
    return results


# The cut part (issue 36): `reel cut` finding the silences of a long 1080p talk-like file (H.264 + AAC stereo;
# bursts of tone with 1.5 s pauses every 6.5 s), against its duration (the target: under 1 %) and against ffmpeg's
# silencedetect over the same file (`-vn`, audio decoded only), both at -35 dB and 0.5 s.
CUT_PATTERN = "if(lt(mod(t,6.5),5),0.3*sin(2*PI*220*t)*(0.6+0.4*sin(2*PI*3*t)),0.002*sin(2*PI*50*t))"


def ensure_long_media(name, inputs, output_options, minutes):
    """A long 1080p source for the cut parts, `minutes` long, generated once from lavfi `inputs` as
    .bench/media/NAME-{minutes}min.mp4 (H.264 ultrafast, a keyframe every 2 s, and `output_options`)."""
    MEDIA.mkdir(parents=True, exist_ok=True)
    target = MEDIA / f"{name}-{minutes}min.mp4"
    if target.exists():
        return target
    print(f"bench: generating {target.relative_to(REPO)}", flush=True)
    partial = target.with_name(f".{target.stem}.partial.mp4")
    run_quietly(["ffmpeg", "-v", "error", "-nostdin", "-y", *inputs,
                 "-t", str(minutes * 60), "-c:v", "libx264", "-preset", "ultrafast", "-g", "60", "-pix_fmt", "yuv420p",
                 *output_options, str(partial)], f"generating {target.name}")
    partial.rename(target)
    return target


def ensure_cut_media(minutes):
    """The cut part's source (a flat grey picture: cheap to encode, a full-size H.264 stream to demux all the
    same) with the talk-like sound."""
    return ensure_long_media("talk-1080p", [
        "-f", "lavfi", "-i", f"color=c=gray:size=1920x1080:rate={FPS}",
        "-f", "lavfi", "-i", f"aevalsrc=exprs='{CUT_PATTERN}':s={SAMPLE_RATE},aformat=channel_layouts=stereo",
    ], ["-c:a", "aac", "-b:a", "128k", "-movflags", "+faststart"], minutes)


def print_share_of_duration(results, duration):
    """Each command's medians, its wall time also as a share of the source's `duration`."""
    width = max(len(name) for name in results)
    for name, runs in results.items():
        wall, cpu = medians(runs)
        print(f"{name:{width}} wall {wall:7.2f} s ({100 * wall / duration:.2f} % of {duration:.0f} s)  cpu {cpu:7.2f} s")


def run_cut(reel, minutes, rounds, warmup):
    source = ensure_cut_media(minutes)
    duration = probe_duration(source)
    WORK.mkdir(parents=True, exist_ok=True)
    print(f"\ncut: silences of a {minutes} min 1080p H.264 + AAC file (reel cut against silencedetect)", flush=True)
    commands = {
        "reel cut": [str(reel), "cut", str(source), "--silence", "-35", "--min-silence", "0.5",
                     "-o", str(WORK / "cut.json"), "--force"],
        "silencedetect": ["ffmpeg", "-v", "error", "-nostdin", "-vn", "-i", str(source),
                          "-af", "silencedetect=n=-35dB:d=0.5", "-f", "null", "-"],
    }
    auto_editor = AUTO_EDITOR if AUTO_EDITOR.exists() else None
    if auto_editor:
        # auto-editor's threshold is relative to the file's highest peak; at the same absolute level it is this many
        # dB below it. Its shortest cut is 6 frames (0.2 s) unless told; reel's --min-silence is the same length here.
        relative = -35 - peak_dbfs(source)
        commands["auto-editor"] = [str(auto_editor), str(source), "--edit", f"audio:threshold={relative:.2f}dB",
                                   "--margin", "0.2sec", "--export", "timeline:api=3", "--no-open"]
    results = timed_rounds(commands, rounds, warmup, "cut")
    print_share_of_duration(results, duration)
    reel_wall = medians(results["reel cut"])[0]
    print(f"reel cut target (< 1 % of the duration): {'met' if reel_wall < 0.01 * duration else 'NOT met'}")
    if auto_editor:
        # Informational (issue 36): the kept duration of each at the same level and margins.
        reel_kept = kept_seconds_of_reel_cut(reel, source)
        editor_kept = kept_seconds_of_auto_editor(commands["auto-editor"])
        print(f"kept: reel cut {reel_kept:.2f} s, auto-editor {editor_kept:.2f} s "
              f"({100 * (reel_kept - editor_kept) / editor_kept:+.2f} %)")
    else:
        print(f"auto-editor: not installed at {AUTO_EDITOR.relative_to(REPO)} (`make auto-editor`), not compared")
    return results


# auto-editor from PyPI for the cut part's comparison (bench only; `make auto-editor` installs it).
AUTO_EDITOR = REPO / ".bench/auto-editor/bin/auto-editor"


def peak_dbfs(path):
    """The highest sample peak of the file's first audio stream in dBFS (ffmpeg's astats)."""
    text = subprocess.run(["ffmpeg", "-nostdin", "-v", "info", "-vn", "-i", str(path), "-af",
                           "astats=measure_perchannel=none", "-f", "null", "-"], capture_output=True, text=True).stderr
    levels = [float(line.rsplit(":", 1)[1]) for line in text.splitlines() if "Peak level dB" in line]
    if not levels:
        raise BenchError(f"no peak level of {path}")
    return max(levels)


def kept_seconds_of_reel_cut(reel, source):
    report = WORK / "cut-report.json"
    run_quietly([str(reel), "cut", str(source), "--silence", "-35", "--min-silence", "0.2", "--margin", "0.2",
                 "--report", str(report), "-o", str(WORK / "cut-compared.json"), "--force"], "reel cut with a report")
    return json.loads(report.read_text())["totals"]["kept"]


def kept_seconds_of_auto_editor(argv):
    text = run_quietly(argv, "auto-editor's timeline")
    timeline = json.loads(text[text.index("{"):])
    numerator, denominator = (int(x) for x in timeline["timebase"].split("/"))
    return sum(clip["dur"] for clip in timeline["a"][0]) * denominator / numerator


def ensure_scene_media(minutes):
    """The scene part's source: a moving 1080p test pattern (every picture different, as a camera's are), no sound."""
    return ensure_long_media("moving-1080p", ["-f", "lavfi", "-i", f"testsrc2=size=1920x1080:rate={FPS}"], [], minutes)


def run_scenes(reel, minutes, rounds, warmup):
    """`reel cut --scenes` (issue 36: under 20 % of the duration) against ffmpeg's scdet over the same file."""
    source = ensure_scene_media(minutes)
    duration = probe_duration(source)
    WORK.mkdir(parents=True, exist_ok=True)
    print(f"\nscenes: shots of a {minutes} min moving 1080p H.264 file (reel cut --scenes against scdet)", flush=True)
    commands = {
        "reel cut --scenes": [str(reel), "cut", str(source), "--scenes", "-o", str(WORK / "scenes.json"), "--force"],
        "scdet": ["ffmpeg", "-v", "error", "-nostdin", "-an", "-i", str(source), "-vf", "scdet", "-f", "null", "-"],
    }
    results = timed_rounds(commands, rounds, warmup, "scenes")
    print_share_of_duration(results, duration)
    reel_wall, reel_cpu = medians(results["reel cut --scenes"])
    ffmpeg_wall, ffmpeg_cpu = medians(results["scdet"])
    print(f"reel / scdet: wall {reel_wall / ffmpeg_wall:.3f}, cpu {reel_cpu / ffmpeg_cpu:.3f}")
    print(f"reel cut --scenes target (< 20 % of the duration): {'met' if reel_wall < 0.2 * duration else 'NOT met'}")
    return results


def ensure_report_media(minutes):
    """The report part's source: a moving 1080p test pattern with a tone (every picture different)."""
    return ensure_long_media("report-1080p", [
        "-f", "lavfi", "-i", f"testsrc2=size=1920x1080:rate={FPS}",
        "-f", "lavfi", "-i", f"sine=frequency=440:sample_rate={SAMPLE_RATE},aformat=channel_layouts=stereo",
    ], ["-c:a", "aac", "-b:a", "128k"], minutes)


def run_report(reel, minutes, rounds, warmup):
    """`reel report` of a `minutes`-long 1080p render (issue 40: at most 5 % of the render): the render of 20 cuts of
    the source, then the page (a picture per instruction, the output's sound analysed) of that render."""
    source = ensure_report_media(minutes)
    duration = probe_video_duration(source)
    WORK.mkdir(parents=True, exist_ok=True)
    output = WORK / "report-render.mp4"
    piece = duration / 20
    project = {
        "reel": 1,
        "output": {**reel_output_settings(output, ENCODER_PRESET), "size": [1920, 1080]},
        "assets": {"talk": {"path": str(source)}},
        "timeline": {"clips": [{"asset": "talk", "in": round(k * piece, 3), "out": round((k + 1) * piece, 3)}
                               for k in range(20)]},
    }
    path = write_project(project, "report")
    print(f"\nreport: a {minutes} min 1080p render of 20 cuts, then reel report of it", flush=True)
    results = timed_rounds({"render": reel_render_args(reel, path)}, rounds, warmup, "report")
    page = WORK / "report.html"
    results.update(timed_rounds({"report": [str(reel), "report", str(path), "--output", str(output), "-o", str(page),
                                            "--force"]}, rounds, warmup, "report"))
    render_wall, render_cpu = medians(results["render"])
    report_wall, report_cpu = medians(results["report"])
    print(f"report / render: wall {report_wall / render_wall:.3f}, cpu {report_cpu / render_cpu:.3f} "
          f"(target <= 0.05: {'met' if report_wall <= 0.05 * render_wall else 'NOT met'})")
    return results


# ---------------------------------------------------------------- projects


def reel_output_settings(path, encoder_preset):
    return {
        "path": str(path),
        "size": [WIDTH, HEIGHT],
        "frameRate": FPS,
        "video": {"codec": "h264", "crf": CRF, "encoderPreset": encoder_preset},
        "audio": {"codec": "aac", "bitrate": AUDIO_BITRATE, "sampleRate": SAMPLE_RATE, "channels": CHANNELS},
    }


def reel_project(cuts, output, encoder_preset=ENCODER_PRESET):
    """A cuts-only editing-form project over the cached media, with absolute paths."""
    names = sorted({name for name, _, _ in cuts})
    return {
        "reel": 1,
        "output": reel_output_settings(output, encoder_preset),
        "assets": {name: {"path": str(source_path(name))} for name in names},
        "timeline": {"clips": [{"asset": name, "in": start, "out": end} for name, start, end in cuts]},
    }


def transitions_project(output):
    """The CUTS project with TRANSITIONS into the second and third clip."""
    project = reel_project(CUTS, output)
    for clip, (kind, _) in zip(project["timeline"]["clips"][1:], TRANSITIONS):
        clip["transition"] = {"type": kind, "duration": TRANSITION_SECONDS}
    return project


def audio_mix_project(output):
    """The CUTS project plus a looping, ducked music bed and a commentary track."""
    project = reel_project(CUTS, output)
    project["assets"]["music"] = {"path": str(audio_source_path("music"))}
    project["assets"]["commentary"] = {"path": str(audio_source_path("commentary"))}
    project["timeline"]["audio"] = [
        {"id": "music", "asset": "music", "at": 0, "in": 0, "out": MUSIC_LOOP_SECONDS, "loop": True,
         "volume": MUSIC_VOLUME},
        {"id": "commentary", "asset": "commentary", "at": COMMENTARY_AT},
    ]
    project["timeline"]["ducking"] = [{"duck": "music", "under": "commentary", "to": DUCK_TO, "ramp": DUCK_RAMP}]
    return project


def ffmpeg_encoder_args(encoder_preset):
    return [
        "-c:v", "libx264", "-crf", str(CRF), "-preset", encoder_preset, "-pix_fmt", "yuv420p",
        "-r", str(FPS),
        "-c:a", "aac", "-b:a", f"{AUDIO_BITRATE // 1000}k", "-ar", str(SAMPLE_RATE), "-ac", str(CHANNELS),
        "-movflags", "+faststart",
    ]


def ffmpeg_cuts_args(cuts, output, input_seek):
    """ffmpeg decoding, trimming, concatenating and encoding the same cuts in one filter graph.

    With input_seek, each input is opened with -ss/-t (seek to the keyframe
    before the in-point, then decode accurately) instead of trim filters that
    decode each source from its start.
    """
    inputs, graph = ffmpeg_clip_inputs(cuts, input_seek)
    graph.append(f"{''.join(f'[v{i}][a{i}]' for i in range(len(cuts)))}concat=n={len(cuts)}:v=1:a=1[v][a]")
    return (["ffmpeg", "-v", "error", "-nostdin", "-y"] + inputs
            + ["-filter_complex", ";".join(graph), "-map", "[v]", "-map", "[a]"]
            + ffmpeg_encoder_args(ENCODER_PRESET) + [str(output)])


def ffmpeg_clip_inputs(cuts, input_seek):
    """Input options and per-clip filter chains ([v<i>], [a<i>], timestamps from 0), as in ffmpeg_cuts_args."""
    inputs, graph = [], []
    for index, (name, start, end) in enumerate(cuts):
        if input_seek:
            inputs += ["-ss", f"{start}", "-t", f"{end - start}", "-i", str(source_path(name))]
            graph.append(f"[{index}:v]setpts=PTS-STARTPTS[v{index}]")
            graph.append(f"[{index}:a]asetpts=PTS-STARTPTS[a{index}]")
        else:
            inputs += ["-i", str(source_path(name))]
            graph.append(f"[{index}:v]trim=start={start}:end={end},setpts=PTS-STARTPTS[v{index}]")
            graph.append(f"[{index}:a]atrim=start={start}:end={end},asetpts=PTS-STARTPTS[a{index}]")
    return inputs, graph


def ffmpeg_transitions_args(cuts, output, input_seek):
    """ffmpeg joining the cuts with xfade (video) and acrossfade (audio), one per TRANSITIONS entry.

    Each xfade's offset is measured on its first input, which is everything
    joined so far: the clips' lengths minus the transitions before it, minus
    this transition's duration.
    """
    inputs, graph = ffmpeg_clip_inputs(cuts, input_seek)
    video, audio = "[v0]", "[a0]"
    joined = cuts[0][2] - cuts[0][1]
    for index, (_, xfade) in enumerate(TRANSITIONS, start=1):
        _, start, end = cuts[index]
        offset = joined - TRANSITION_SECONDS
        last = index == len(TRANSITIONS)
        video_out, audio_out = ("[v]", "[a]") if last else (f"[vx{index}]", f"[ax{index}]")
        graph.append(f"{video}[v{index}]xfade=transition={xfade}:duration={TRANSITION_SECONDS}"
                     f":offset={offset:.3f}{video_out}")
        graph.append(f"{audio}[a{index}]acrossfade=d={TRANSITION_SECONDS}{audio_out}")
        video, audio = video_out, audio_out
        joined = offset + (end - start)
    return (["ffmpeg", "-v", "error", "-nostdin", "-y"] + inputs
            + ["-filter_complex", ";".join(graph), "-map", "[v]", "-map", "[a]"]
            + ffmpeg_encoder_args(ENCODER_PRESET) + [str(output)])


def ffmpeg_audio_mix_args(cuts, output, input_seek):
    """ffmpeg concatenating the cuts and mixing in a looped music bed ducked by sidechaincompress under commentary.

    Not the same work as reel: the compressor follows the commentary's level
    (releasing in its pauses), where reel ducks by the track's placement.
    """
    inputs, graph = ffmpeg_clip_inputs(cuts, input_seek)
    music, commentary = len(cuts), len(cuts) + 1
    inputs += ["-i", str(audio_source_path("music")), "-i", str(audio_source_path("commentary"))]
    graph.append(f"{''.join(f'[v{i}][a{i}]' for i in range(len(cuts)))}concat=n={len(cuts)}:v=1:a=1[v][main]")
    graph.append(f"[{music}:a]atrim=end={MUSIC_LOOP_SECONDS},asetpts=PTS-STARTPTS,"
                 f"aloop=loop=-1:size={MUSIC_LOOP_SECONDS * SAMPLE_RATE},volume={MUSIC_VOLUME}[music]")
    graph.append(f"[{commentary}:a]adelay=delays={COMMENTARY_AT * 1000}:all=1,asplit[voice][key]")
    graph.append(f"[music][key]sidechaincompress=threshold=0.01:ratio=20:attack={DUCK_RAMP * 1000:g}"
                 f":release={DUCK_RAMP * 1000:g}[ducked]")
    graph.append("[main][ducked][voice]amix=inputs=3:duration=first:normalize=0[a]")
    return (["ffmpeg", "-v", "error", "-nostdin", "-y"] + inputs
            + ["-filter_complex", ";".join(graph), "-map", "[v]", "-map", "[a]"]
            + ffmpeg_encoder_args(ENCODER_PRESET) + [str(output)])


def write_project(project, name):
    WORK.mkdir(parents=True, exist_ok=True)
    path = WORK / f"{name}.json"
    path.write_text(json.dumps(project, indent=2) + "\n")
    return path


# ---------------------------------------------------------------- cases
# Each case function returns a Comparison; list new ones in COMPARISONS.


def cuts_case(args):
    """Three trimmed clips cut together, no effects."""
    reel_out = WORK / "cuts-reel.mp4"
    ffmpeg_out = WORK / "cuts-ffmpeg.mp4"
    return Comparison(
        name="cuts",
        description=f"{len(CUTS)} clips trimmed between keyframes, concatenated",
        timeline_seconds=sum(end - start for _, start, end in CUTS),
        reel_project=reel_project(CUTS, reel_out),
        ffmpeg_args=ffmpeg_cuts_args(CUTS, ffmpeg_out, args.ffmpeg_input_seek),
        reel_output=reel_out,
        ffmpeg_output=ffmpeg_out,
    )


def transitions_case(args):
    """The cuts joined by a dissolve and a push, against xfade + acrossfade, and against reel's plain cuts."""
    reel_out = WORK / "transitions-reel.mp4"
    ffmpeg_out = WORK / "transitions-ffmpeg.mp4"
    kinds = " then ".join(f"{TRANSITION_SECONDS} s {kind}" for kind, _ in TRANSITIONS)
    return Comparison(
        name="transitions",
        description=f"the cuts joined by a {kinds} (ffmpeg: xfade {', '.join(x for _, x in TRANSITIONS)}"
                    f" + acrossfade); baseline: reel cuts",
        timeline_seconds=sum(end - start for _, start, end in CUTS) - TRANSITION_SECONDS * len(TRANSITIONS),
        reel_project=transitions_project(reel_out),
        ffmpeg_args=ffmpeg_transitions_args(CUTS, ffmpeg_out, args.ffmpeg_input_seek),
        reel_output=reel_out,
        ffmpeg_output=ffmpeg_out,
        baseline_name="cuts",
        baseline_project=reel_project(CUTS, WORK / "transitions-base.mp4"),
        baseline_output=WORK / "transitions-base.mp4",
        targets=[Target("ffmpeg", 0.90), Target("baseline", 1.10)],
    )


# The titles cases: the seed demo's "Magic" title (W1), and one short title over a minute of cuts.
TITLE_SIZE = 72


def magic_title(start, duration, fade):
    """A white title with the demo's look, fading out over its last `fade` seconds."""
    return {"text": "Magic", "start": start, "duration": duration, "size": TITLE_SIZE,
            "outline": {"color": "#000000", "width": 2}, "shadow": {"color": "#00000099", "offset": [3, 3], "blur": 4},
            "animations": [{"property": "opacity", "from": 1, "to": 0, "start": duration - fade, "duration": fade}]}


def seed_demo_project(output, title):
    """W1: three clips, a dissolve and a push, commentary over a ducked music bed; with or without the title."""
    project = audio_mix_project(output)
    for clip, (kind, _) in zip(project["timeline"]["clips"][1:], TRANSITIONS):
        clip["transition"] = {"type": kind, "duration": TRANSITION_SECONDS}
    if title:
        project["timeline"]["titles"] = [magic_title(0, 10, 1)]
    return project


def titles_w1_case(args):
    """The seed demo with a 10 s title against the same project without it."""
    return Comparison(
        name="title-w1",
        description="seed demo W1 (dissolve, push, commentary over ducked music) + a 10 s 72 px title fading out "
                    "over its last second; baseline: the same without the title",
        timeline_seconds=sum(end - start for _, start, end in CUTS) - TRANSITION_SECONDS * len(TRANSITIONS),
        reel_project=seed_demo_project(WORK / "title-w1-reel.mp4", title=True),
        ffmpeg_args=None, reel_output=WORK / "title-w1-reel.mp4", ffmpeg_output=None,
        baseline_name="W1 without title",
        baseline_project=seed_demo_project(WORK / "title-w1-base.mp4", title=False),
        baseline_output=WORK / "title-w1-base.mp4",
        targets=[Target("baseline", 1.03)],
    )


def ffmpeg_seed_demo_floor_args(output):
    """The decode + encode floor of the seed demo W1: the ffmpeg CLI decoding everything W1 reads (the three cut
    ranges, seeking to the keyframe before each in-point as reel does; the music bed looped; the commentary), summed
    with amix and nothing else, cut to W1's length and encoded with the same settings. No dissolve, push or ducking:
    that work is reel's alone. The trim can end the third clip's decoding up to 2 s early, so the floor is, if
    anything, slightly cheaper than the work W1 must do."""
    inputs, graph = ffmpeg_clip_inputs(CUTS, True)
    music, commentary = len(CUTS), len(CUTS) + 1
    inputs += ["-i", str(audio_source_path("music")), "-i", str(audio_source_path("commentary"))]
    length = seed_demo_seconds()
    graph.append(f"{''.join(f'[v{i}][a{i}]' for i in range(len(CUTS)))}concat=n={len(CUTS)}:v=1:a=1[joined][main]")
    graph.append(f"[joined]trim=end={length:.3f}[v]")
    graph.append(f"[{music}:a]atrim=end={MUSIC_LOOP_SECONDS},asetpts=PTS-STARTPTS,"
                 f"aloop=loop=-1:size={MUSIC_LOOP_SECONDS * SAMPLE_RATE}[music]")
    graph.append(f"[{commentary}:a]adelay=delays={COMMENTARY_AT * 1000}:all=1[voice]")
    graph.append(f"[main][music][voice]amix=inputs=3:duration=first:normalize=0,atrim=end={length:.3f}[a]")
    return (["ffmpeg", "-v", "error", "-nostdin", "-y"] + inputs
            + ["-filter_complex", ";".join(graph), "-map", "[v]", "-map", "[a]"]
            + ffmpeg_encoder_args(ENCODER_PRESET) + [str(output)])


def seed_demo_seconds():
    return sum(end - start for _, start, end in CUTS) - TRANSITION_SECONDS * len(TRANSITIONS)


def seed_demo_case(args):
    """W1, the seed demo, against its decode + encode floor (issue 35 goal 5: CPU <= 1.02x, peak memory <= the
    floor's; the memory ratio is printed after the tables)."""
    return Comparison(
        name="w1",
        description="seed demo W1 (dissolve, push, commentary over a ducked music bed) against its decode + encode "
                    "floor (ffmpeg decoding the same ranges and sound, amix, encoding W1's length; no effects)",
        timeline_seconds=seed_demo_seconds(),
        reel_project=seed_demo_project(WORK / "w1-reel.mp4", title=False),
        ffmpeg_args=ffmpeg_seed_demo_floor_args(WORK / "w1-floor.mp4"),
        reel_output=WORK / "w1-reel.mp4", ffmpeg_output=WORK / "w1-floor.mp4",
        targets=[Target("ffmpeg", 1.02)],
    )


def titles_minute_case(args):
    """A minute of cuts with one 3 s title against the same cuts without it."""
    cuts = repeated_cuts(1)
    project = reel_project(cuts, WORK / "title-60s-reel.mp4")
    project["timeline"]["titles"] = [magic_title(20, 3, 0.5)]
    return Comparison(
        name="title-60s",
        description="60 s of cuts + one 3 s title; baseline: the same cuts without it",
        timeline_seconds=60, reel_project=project,
        ffmpeg_args=None, reel_output=WORK / "title-60s-reel.mp4", ffmpeg_output=None,
        baseline_name="cuts without title",
        baseline_project=reel_project(cuts, WORK / "title-60s-base.mp4"),
        baseline_output=WORK / "title-60s-base.mp4",
        targets=[Target("baseline", 1.01)],
    )


def write_talk_srt():
    """Twenty two-line SubRip cues, 2.5 s each every 3 s over a minute, for the captions case."""
    WORK.mkdir(parents=True, exist_ok=True)
    path = WORK / "talk.srt"

    def stamp(seconds):
        whole = int(seconds)
        return f"00:{whole // 60:02d}:{whole % 60:02d},{int(round((seconds - whole) * 1000)):03d}"

    cues = [f"{n + 1}\n{stamp(n * 3)} --> {stamp(n * 3 + 2.5)}\nCaption number {n + 1} of the talk,\n"
            f"spoken over the cuts" for n in range(20)]
    path.write_text("\n\n".join(cues) + "\n")
    return path


def minute_with(name, description, key, value, baseline_name, limit):
    """A minute of cuts with `value` as its timeline's `key`, against the same minute without it."""
    cuts = repeated_cuts(1)
    project = reel_project(cuts, WORK / f"{name}-reel.mp4")
    project["timeline"][key] = value
    return Comparison(
        name=name, description=description, timeline_seconds=60, reel_project=project,
        ffmpeg_args=None, reel_output=WORK / f"{name}-reel.mp4", ffmpeg_output=None,
        baseline_name=baseline_name,
        baseline_project=reel_project(cuts, WORK / f"{name}-base.mp4"),
        baseline_output=WORK / f"{name}-base.mp4",
        targets=[Target("baseline", limit)],
    )


def captions_minute_case(args):
    """A minute of cuts with burned-in SubRip captions (libass) against the same cuts without them."""
    return minute_with("captions-60s",
                       "60 s of cuts + 20 burned-in two-line SRT cues (2.5 s of every 3 s); baseline: the same cuts",
                       "captions", [{"file": str(write_talk_srt())}], "cuts without captions", 1.03)


def timecode_minute_case(args):
    """A minute of cuts with a review-copy title showing the timecode and frame on every frame."""
    title = {"text": "{timecode}  frame {frame}", "start": 0, "duration": 60, "size": 32,
             "anchor": "bottomLeft", "position": [0.03, 0.96], "background": "#00000099"}
    return minute_with("timecode-60s",
                       "60 s of cuts + a {timecode} {frame} burn-in drawn on every frame; baseline: the same cuts",
                       "titles", [title], "cuts without burn-in", 1.02)  # issue 35's goal (issue 22's was 1.05)


def audio_mix_case(args):
    """The cuts plus a looped music bed ducked under commentary, against reel's cuts without them."""
    reel_out = WORK / "audio-mix-reel.mp4"
    ffmpeg_out = WORK / "audio-mix-ffmpeg.mp4"
    return Comparison(
        name="audio-mix",
        description=f"the cuts + music looping its first {MUSIC_LOOP_SECONDS} s, ducked to {DUCK_TO} under "
                    f"commentary at {COMMENTARY_AT} s (ffmpeg: amix + sidechaincompress, indicative); "
                    f"baseline: reel cuts",
        timeline_seconds=sum(end - start for _, start, end in CUTS),
        reel_project=audio_mix_project(reel_out),
        ffmpeg_args=ffmpeg_audio_mix_args(CUTS, ffmpeg_out, args.ffmpeg_input_seek),
        reel_output=reel_out,
        ffmpeg_output=ffmpeg_out,
        baseline_name="cuts",
        baseline_project=reel_project(CUTS, WORK / "audio-mix-base.mp4"),
        baseline_output=WORK / "audio-mix-base.mp4",
        ffmpeg_indicative=True,
        targets=[Target("baseline", 1.05, strict=True)],
    )


# The social case (issue 35): 10 s of 1080p landscape made vertical with a blurred fill, captions and a logo.
SOCIAL_SOURCE_SIZE, SOCIAL_CANVAS = (1920, 1080), (1080, 1920)
SOCIAL_SECONDS = 10
# The fill's gaussian: 1/40 of the canvas's longer side (docs/effects.md, "Blurred fill").
SOCIAL_SIGMA = 48


def ensure_social_media():
    """The social case's inputs, made once: a 1080p30 H.264 + AAC landscape source, a 240x120 logo PNG with an
    alpha ramp, and five SubRip cues."""
    MEDIA.mkdir(parents=True, exist_ok=True)
    width, height = SOCIAL_SOURCE_SIZE
    source = MEDIA / f"social-{width}x{height}-{SOCIAL_SECONDS}s.mp4"
    if not source.exists():
        partial = source.with_name(f".{source.stem}.partial.mp4")
        run_quietly(["ffmpeg", "-v", "error", "-nostdin", "-y",
                     "-f", "lavfi", "-i", f"testsrc2=size={width}x{height}:rate={FPS},format=yuv420p",
                     "-f", "lavfi", "-i", f"sine=frequency=440:sample_rate={SAMPLE_RATE},aformat=channel_layouts=stereo",
                     "-t", str(SOCIAL_SECONDS), "-c:v", "libx264", "-preset", "medium", "-crf", "20",
                     "-g", str(SOURCE_GOP), "-pix_fmt", "yuv420p", "-colorspace", "bt709", "-color_primaries", "bt709",
                     "-color_trc", "bt709", "-c:a", "aac", "-b:a", "128k", "-movflags", "+faststart", str(partial)],
                    "social source")
        partial.rename(source)
    logo = MEDIA / "social-logo.png"
    if not logo.exists():
        partial = logo.with_name(".social-logo.partial.png")
        run_quietly(["ffmpeg", "-v", "error", "-nostdin", "-y", "-f", "lavfi", "-i",
                     "testsrc=size=240x120:rate=1,format=rgba,geq=r='r(X,Y)':g='g(X,Y)':b='b(X,Y)':a='64+191*X/W'",
                     "-frames:v", "1", "-f", "image2", "-c:v", "png", str(partial)], "social logo")
        partial.rename(logo)
    captions = MEDIA / "social.srt"
    if not captions.exists():
        cues = [f"{n + 1}\n00:00:{n * 2:02d},000 --> 00:00:{n * 2 + 1:02d},800\nWhat we saw on day {n + 1},\n"
                f"in two short lines" for n in range(SOCIAL_SECONDS // 2)]
        captions.write_text("\n\n".join(cues) + "\n")
    return source, logo, captions


def social_project(output, source, logo, captions, fit):
    """The clip on a vertical canvas with `fit`; captions and the logo (top right) unless `fit` is the floor's."""
    project = {
        "reel": 1,
        "output": {"path": str(output), "size": list(SOCIAL_CANVAS), "frameRate": FPS,
                   "video": {"codec": "h264", "crf": CRF, "encoderPreset": ENCODER_PRESET},
                   "audio": {"codec": "aac", "bitrate": AUDIO_BITRATE, "sampleRate": SAMPLE_RATE,
                             "channels": CHANNELS}},
        "assets": {"landscape": {"path": str(source)}, "logo": {"image": str(logo)}},
        "timeline": {"clips": [{"asset": "landscape", "fit": fit}]},
    }
    if fit == "blur":
        project["timeline"]["captions"] = [{"file": str(captions)}]
        project["timeline"]["overlays"] = [{"image": "logo", "start": 0, "duration": SOCIAL_SECONDS,
                                            "position": [0.85, 0.06]}]
    else:
        del project["assets"]["logo"]
    return project


def ffmpeg_social_args(source, logo, captions, output):
    """The recipe such users copy, one filtergraph: the fill (scale to cover, crop, gblur), the picture scaled to
    contain and laid over it, the captions burned in by libass, the logo laid over at the same place."""
    width, height = SOCIAL_CANVAS
    logo_x, logo_y = f"{width} * 0.85 - w / 2", f"{height} * 0.06 - h / 2"
    graph = ";".join([
        "[0:v]split[fill][picture]",
        f"[fill]scale={width}:{height}:force_original_aspect_ratio=increase,crop={width}:{height},"
        f"gblur=sigma={SOCIAL_SIGMA}[blurred]",
        f"[picture]scale={width}:{height}:force_original_aspect_ratio=decrease[contained]",
        "[blurred][contained]overlay=x=(W-w)/2:y=(H-h)/2,"
        f"subtitles=filename={captions}[captioned]",
        f"[captioned][1:v]overlay=x='{logo_x}':y='{logo_y}':format=auto,format=yuv420p[v]",
    ])
    return (["ffmpeg", "-v", "error", "-nostdin", "-y", "-i", str(source), "-loop", "1", "-i", str(logo),
             "-filter_complex", graph, "-map", "[v]", "-map", "0:a", "-t", str(SOCIAL_SECONDS)]
            + ffmpeg_encoder_args(ENCODER_PRESET) + [str(output)])


def social_case(args):
    """social: fit blur + captions + logo on a 1080x1920 canvas, against the ffmpeg recipe and the job's floor
    (the same clip cover-scaled with nothing else: one decode, one 1080x1920 encode)."""
    source, logo, captions = ensure_social_media()
    reel_out, ffmpeg_out, floor_out = WORK / "social-reel.mp4", WORK / "social-ffmpeg.mp4", WORK / "social-floor.mp4"
    return Comparison(
        name="social",
        description=f"{SOCIAL_SECONDS} s of {SOCIAL_SOURCE_SIZE[0]}x{SOCIAL_SOURCE_SIZE[1]} landscape on a "
                    f"{SOCIAL_CANVAS[0]}x{SOCIAL_CANVAS[1]} canvas with fit blur (sigma {SOCIAL_SIGMA}), SRT captions "
                    f"burned in and a logo PNG with alpha (ffmpeg: split; scale cover, crop, gblur; scale contain; "
                    f"overlay; subtitles; overlay); baseline: the floor (fit cover, no captions or logo)",
        timeline_seconds=SOCIAL_SECONDS,
        reel_project=social_project(reel_out, source, logo, captions, "blur"),
        ffmpeg_args=ffmpeg_social_args(source, logo, captions, ffmpeg_out),
        reel_output=reel_out, ffmpeg_output=ffmpeg_out,
        baseline_name="floor (fit cover)",
        baseline_project=social_project(floor_out, source, logo, captions, "cover"),
        baseline_output=floor_out,
        targets=[Target("ffmpeg", 0.80), Target("baseline", 1.10)],
    )


# The look case (issue 35): 10 s of 1080p graded with a 33-point .cube LUT, then contrast and saturation, with a
# 400x200 plate blurred; against the ffmpeg recipe users copy (lut3d, eq, split/crop/gblur/overlay) with the same
# encoder settings. The baseline is reel's plain re-encode of the same source; the LUT alone and a chroma key alone
# are rendered in the same rounds and shown as ratios to it.
LOOK_SECONDS = 10
LOOK_CONTRAST, LOOK_SATURATION = 1.1, 1.2
LOOK_PLATE = (1200, 700, 400, 200)  # x, y, width, height: even, inside 1920x1080
LOOK_BLUR = 16


def ensure_look_media():
    """The look case's 10 s 1080p30 source (testsrc2, BT.709) and its LUT (the effects part's), made once."""
    source = MEDIA / f"look-{EFFECTS_WIDTH}x{EFFECTS_HEIGHT}-{LOOK_SECONDS}s.mp4"
    if not source.exists():
        MEDIA.mkdir(parents=True, exist_ok=True)
        partial = source.with_name(".look.partial.mp4")
        run_quietly(["ffmpeg", "-v", "error", "-nostdin", "-y", "-f", "lavfi", "-i",
                     f"testsrc2=size={EFFECTS_WIDTH}x{EFFECTS_HEIGHT}:rate={FPS}:duration={LOOK_SECONDS}",
                     "-pix_fmt", "yuv420p", "-colorspace", "bt709", "-color_primaries", "bt709", "-color_trc", "bt709",
                     "-c:v", "libx264", "-preset", "veryfast", "-crf", "18", "-g", str(SOURCE_GOP), str(partial)],
                    "look source")
        partial.rename(source)
    _, lut = ensure_effects_media()
    return source, lut


def look_case(args):
    """LUT + contrast/saturation + a blurred plate on 10 s of 1080p, against ffmpeg's lut3d, eq and gblur."""
    source, lut = ensure_look_media()
    x, y, w, h = LOOK_PLATE
    look = [{"type": "lut", "file": str(lut)},
            {"type": "color", "contrast": LOOK_CONTRAST, "saturation": LOOK_SATURATION},
            {"type": "blur", "radius": LOOK_BLUR, "rect": [x, y, w, h]}]
    reel_out, ffmpeg_out = WORK / "look-reel.mp4", WORK / "look-ffmpeg.mp4"
    graph = (f"[0:v]lut3d=file={lut}:interp=tetrahedral,eq=contrast={LOOK_CONTRAST}:saturation={LOOK_SATURATION},"
             f"split[m][p];[p]crop={w}:{h}:{x}:{y},gblur=sigma={LOOK_BLUR}[b];[m][b]overlay={x}:{y},format=yuv420p[v]")
    ffmpeg_args = (["ffmpeg", "-v", "error", "-nostdin", "-y", "-i", str(source), "-filter_complex", graph,
                    "-map", "[v]", "-an", "-c:v", "libx264", "-crf", str(CRF), "-preset", ENCODER_PRESET,
                    "-pix_fmt", "yuv420p", "-r", str(FPS), str(ffmpeg_out)])
    key = [{"type": "chromaKey", "color": "#00FF00", "similarity": 0.3, "blend": 0.1}]
    return Comparison(
        name="look",
        description=f"{LOOK_SECONDS} s of {EFFECTS_WIDTH}x{EFFECTS_HEIGHT}: 33-point LUT, contrast {LOOK_CONTRAST}, "
                    f"saturation {LOOK_SATURATION}, a {w}x{h} plate blurred (sigma {LOOK_BLUR}) (ffmpeg: lut3d, eq, "
                    "split/crop/gblur/overlay); baseline: reel's plain re-encode; lut and key alone against it",
        timeline_seconds=LOOK_SECONDS,
        reel_project=effects_project(reel_out, source, look),
        ffmpeg_args=ffmpeg_args, reel_output=reel_out, ffmpeg_output=ffmpeg_out,
        baseline_name="plain",
        baseline_project=effects_project(WORK / "look-base.mp4", source, []),
        baseline_output=WORK / "look-base.mp4",
        targets=[Target("ffmpeg", 0.80)],
        variants={"look:lut": (effects_project(WORK / "look-lut.mp4", source, look[:1]), 1.30),
                  "look:key": (effects_project(WORK / "look-key.mp4", source, key), 1.20)},
    )


COMPARISONS = {"cuts": cuts_case, "transitions": transitions_case, "audio-mix": audio_mix_case,
               "title-w1": titles_w1_case, "title-60s": titles_minute_case,
               "captions-60s": captions_minute_case, "timecode-60s": timecode_minute_case,
               "social": social_case, "look": look_case, "w1": seed_demo_case}


# ---------------------------------------------------------------- running


def reel_render_args(reel, project):
    return [str(reel), "render", str(project), "--force", "-q"]


def run_comparison(case, reel, rounds, warmup, ffmpeg_only):
    project = write_project(case.reel_project, case.name)
    commands = {"ffmpeg": case.ffmpeg_args} if case.ffmpeg_args else {}
    if not ffmpeg_only:
        commands["reel"] = reel_render_args(reel, project)
    if case.baseline_project is not None:
        baseline = write_project(case.baseline_project, f"{case.name}-base")
        if not ffmpeg_only:
            commands["reel-base"] = reel_render_args(reel, baseline)
    for index, (name, (project, _)) in enumerate(case.variants.items()):
        if not ffmpeg_only:
            commands[f"reel:{name}"] = reel_render_args(reel, write_project(project, f"{case.name}-variant-{index}"))
            case.results.setdefault(f"reel:{name}", [])
    order = sorted(commands)
    print(f"\n== {case.name}: {case.description}; timeline {case.timeline_seconds:.3f} s", flush=True)
    for tool in order:
        print(f"   {tool}: {' '.join(map(str, commands[tool]))}", flush=True)
    for _ in range(warmup):
        for tool in order:
            measure(commands[tool], f"{case.name} warm-up ({tool})")
    before = os.getloadavg()[0]
    for round_index in range(rounds):
        # Rotate who goes first so drift (thermal, cache, other load) hits every command alike.
        shift = round_index % len(order)
        sequence = order[shift:] + order[:shift]
        for tool in sequence:
            result = measure(commands[tool], f"{case.name} round {round_index + 1} ({tool})")
            case.results[tool].append(result)
            print(f"   round {round_index + 1} {tool:9} wall {result.wall:7.2f} s  cpu {result.cpu:7.2f} s", flush=True)
    case.load = (before, os.getloadavg()[0])
    print(f"   load average (1 min): {before:.2f} before the rounds, {case.load[1]:.2f} after", flush=True)
    outputs = (("reel", case.reel_output), ("ffmpeg", case.ffmpeg_output), ("reel-base", case.baseline_output))
    for tool, output in outputs:
        if tool in commands:
            print(f"   {tool} output duration: {probe_duration(output):.3f} s", flush=True)


def medians(runs):
    """(median wall, median CPU) in seconds, or None without runs."""
    if not runs:
        return None
    return statistics.median(m.wall for m in runs), statistics.median(m.cpu for m in runs)


def verdict(target, wall_ratio, cpu_ratio):
    """Whether a target holds for the wall and CPU ratios, as table text."""
    wall, cpu = target.met(wall_ratio), target.met(cpu_ratio)
    if wall and cpu:
        return "met"
    if wall or cpu:
        return "wall only" if wall else "cpu only"
    return "missed"


def paired_ratios(runs, others):
    """(median wall ratio, median CPU ratio) of the rounds' own ratios: run i of `runs` over run i of `others`, which
    ran back to back with it in the same round, so a load that slows both cancels out of each round's ratio."""
    pairs = list(zip(runs, others))
    return (statistics.median(a.wall / b.wall for a, b in pairs),
            statistics.median(a.cpu / b.cpu for a, b in pairs))


def ratio_row(name, reel_runs, other_runs, target):
    """One table row: reel's and the other command's medians, the ratios of the medians, the medians of the rounds'
    ratios (paired), the target and whether the paired ratios hold it."""
    other = medians(other_runs)
    if not reel_runs:
        return (f"{name:12} {'-':>10} {other[0]:12.2f} {'-':>7} {'-':>7}   {'-':>9} {other[1]:11.2f} {'-':>7} {'-':>7}"
                f"   {target.text() if target else '':>7}").rstrip()
    reel = medians(reel_runs)
    wall_ratio, cpu_ratio = reel[0] / other[0], reel[1] / other[1]
    paired_wall, paired_cpu = paired_ratios(reel_runs, other_runs)
    row = (f"{name:12} {reel[0]:10.2f} {other[0]:12.2f} {wall_ratio:7.2f} {paired_wall:7.3f}"
           f"   {reel[1]:9.2f} {other[1]:11.2f} {cpu_ratio:7.2f} {paired_cpu:7.3f}")
    if target:
        row += f"   {target.text():>7}  {verdict(target, paired_wall, paired_cpu)}"
    return row


def load_text(case):
    """The case's load averages before and after its rounds, for the end of a table row."""
    return f"   load {case.load[0]:.1f}-{case.load[1]:.1f}" if case.load else ""


def print_table(cases):
    def header(other):
        text = (f"{'case':12} {'reel wall':>10} {other + ' wall':>12} {'ratio':>7} {'paired':>7}"
                f"   {'reel cpu':>9} {other + ' cpu':>11} {'ratio':>7} {'paired':>7}   {'target':>7}  verdict")
        print(text)
        print("-" * len(text))

    against_ffmpeg = [case for case in cases if case.ffmpeg_args]
    if against_ffmpeg:
        print("\nMedians (seconds) and ratios reel / ffmpeg: of the medians, and the median of the rounds' own ratios "
              "(paired);\nlower is better; a target holds when both paired ratios (wall and CPU) hold it")
        header("ffmpeg")
    for case in against_ffmpeg:
        target = next((t for t in case.targets if t.against == "ffmpeg"), None)
        name = case.name + ("*" if case.ffmpeg_indicative else "")
        print(ratio_row(name, case.results["reel"], case.results["ffmpeg"], target) + load_text(case))
    if any(case.ffmpeg_indicative for case in cases):
        print("* the ffmpeg side does comparable, not identical, work: indicative only")

    with_baseline = [case for case in cases if case.results["reel-base"]]
    if with_baseline:
        print("\nMedians (seconds) and ratios reel / reel on the baseline project (base), of the medians and paired; "
              "lower is better")
        header("base")
        for case in with_baseline:
            target = next((t for t in case.targets if t.against == "baseline"), None)
            print(ratio_row(f"{case.name}", case.results["reel"], case.results["reel-base"], target)
                  + f"   (base: reel {case.baseline_name}){load_text(case)}")
            for name, (_, limit) in case.variants.items():
                runs = case.results.get(f"reel:{name}")
                if runs:
                    print(ratio_row(name, runs, case.results["reel-base"],
                                    Target("baseline", limit) if limit else None)
                          + f"   (base: reel {case.baseline_name})")


def print_peak_memory(cases):
    """Median peak RSS of reel against the ffmpeg command, for the cases that set a memory goal (w1)."""
    for case in cases:
        if case.name != "w1" or not case.results["reel"] or not case.results["ffmpeg"]:
            continue
        reel = statistics.median(m.max_rss_kib for m in case.results["reel"])
        ffmpeg = statistics.median(m.max_rss_kib for m in case.results["ffmpeg"])
        print(f"\npeak RSS, {case.name}: reel {reel / 1024:.1f} MiB, floor {ffmpeg / 1024:.1f} MiB, "
              f"ratio {reel / ffmpeg:.2f} (target <= 1.00: {'met' if reel <= ffmpeg else 'NOT met'})")


def repeated_cuts(minutes):
    """CUTS cycled until the timeline lasts exactly `minutes` minutes (the last cut shortened).

    Arithmetic is in whole milliseconds so every time stays an exact short decimal
    (reel reads JSON numbers exactly from their decimal text).
    """
    remaining_ms = minutes * 60_000
    cuts = []
    while remaining_ms > 0:
        for name, start, end in CUTS:
            start_ms, end_ms = round(start * 1000), round(end * 1000)
            length_ms = min(end_ms - start_ms, remaining_ms)
            cuts.append((name, start, (start_ms + length_ms) / 1000))
            remaining_ms -= length_ms
            if remaining_ms == 0:
                break
    return cuts


def run_memory(reel, minutes_list):
    print("\nPeak memory of reel render (ru_maxrss of the child); encoderPreset ultrafast to keep it quick")
    print(f"{'timeline':>10} {'clips':>6} {'wall s':>8} {'peak RSS MiB':>13}")
    rows = []
    for minutes in minutes_list:
        cuts = repeated_cuts(minutes)
        output = WORK / f"memory-{minutes}min.mp4"
        project = write_project(reel_project(cuts, output, encoder_preset="ultrafast"), f"memory-{minutes}min")
        result = measure(reel_render_args(reel, project), f"memory {minutes} min")
        rows.append((minutes, len(cuts), result))
        print(f"{minutes:>7} min {len(cuts):6} {result.wall:8.1f} {result.max_rss_kib / 1024:13.1f}", flush=True)
        output.unlink(missing_ok=True)
    return rows


def run_chunks(reel, minutes, chunks=4, jobs=2):
    """A `minutes`-long 720p timeline rendered in one process, and as `chunks` parts plus the audio part through
    GNU parallel -j`jobs` (one encoder thread per part) and `reel join`, which copies the audio part's packets;
    prints the times, the speed-up and the join's share, and for comparison one join that encodes the audio itself
    (no audio part)."""
    if shutil.which("parallel") is None:
        print("\nchunks: skipped, GNU parallel is not installed (make deps installs it)")
        return {}
    cuts = repeated_cuts(minutes)
    project = write_project(reel_project(cuts, WORK / f"chunks-{minutes}min.mp4"), f"chunks-{minutes}min")
    stem = f"chunks-{minutes}min"
    parts = [WORK / f"{stem}-part-{k}.mkv" for k in range(chunks)]
    sound = WORK / f"{stem}-sound.mov"
    single = [str(reel), "render", str(project), "-o", str(WORK / f"{stem}-single.mp4"), "--force", "-q"]
    # One job per input line: the --chunk value and the part's path; the audio part is one more job.
    jobs_list = [f"{k}/{chunks} {WORK / f'{stem}-part-{k}.mkv'}" for k in range(chunks)] + [f"audio {sound}"]
    spread = ["parallel", "--will-cite", "-j", str(jobs), "--halt", "now,fail=1", "--colsep", " ", str(reel),
              "render", str(project), "--chunk", "{1}", "-o", "{2}", "--force", "-q", ":::"] + jobs_list
    join = [str(reel), "join", str(project)] + [str(p) for p in parts] + [
        str(sound), "-o", str(WORK / f"{stem}-joined.mp4"), "--force", "-q"]
    join_encode = [str(reel), "join", str(project)] + [str(p) for p in parts] + [
        "-o", str(WORK / f"{stem}-joined-encode.mp4"), "--force", "-q"]
    print(f"\n== chunks: a {minutes}-minute {WIDTH}x{HEIGHT} timeline ({len(cuts)} clips) in one process, and as "
          f"{chunks} chunks + the audio part through parallel -j{jobs} (one encoder thread each) + reel join",
          flush=True)
    results = {}
    for name, argv in (("single", single), ("chunks", spread), ("join", join), ("join-encode", join_encode)):
        print(f"   {name}: {' '.join(argv)}", flush=True)
        results[name] = measure(argv, f"chunks ({name})")
        print(f"   {name:11} wall {results[name].wall:8.2f} s  cpu {results[name].cpu:8.2f} s", flush=True)
    total = results["chunks"].wall + results["join"].wall
    share = results["join"].wall / results["single"].wall
    print(f"speed-up (one process wall / (chunks + join) wall): {results['single'].wall / total:.2f} on "
          f"{os.cpu_count()} CPUs; join (audio part copied) / one-process render: {share:.2%} (target < 2 %: "
          f"{'met' if share < 0.02 else 'missed'}); the join that encodes the audio: "
          f"{results['join-encode'].wall / results['single'].wall:.2%}")
    print(f"   joined duration {probe_duration(WORK / f'{stem}-joined.mp4'):.3f} s, one process "
          f"{probe_duration(WORK / f'{stem}-single.mp4'):.3f} s", flush=True)
    same = decoded_audio_digest(WORK / f"{stem}-joined.mp4") == decoded_audio_digest(WORK / f"{stem}-single.mp4")
    print(f"   joined audio decodes to the one-process render's samples: {'yes' if same else 'NO'}", flush=True)
    return {name: [m] for name, m in results.items()}


BATCH_SECONDS = 5
BATCH_PHOTOS = 4


def batch_template():
    """A 5 s 720p template: one photo (chosen by the row) under one title (written by the row)."""
    return {
        "reel": 1,
        "variables": {
            "id": {"type": "string", "description": "names the output"},
            "title": {"type": "string", "default": "Hello"},
            "photo": {"type": "string", "description": "photo file name in photos/, without .png"},
        },
        "output": {"size": [WIDTH, HEIGHT], "frameRate": FPS, "audio": False,
                   "video": {"codec": "h264", "crf": CRF, "encoderPreset": ENCODER_PRESET}},
        "assets": {"photo": {"image": "photos/{{photo}}.png"}},
        "timeline": {
            "clips": [{"asset": "photo", "duration": BATCH_SECONDS}],
            "titles": [{"text": "{{title}}", "start": 0, "duration": BATCH_SECONDS, "size": 72,
                        "position": [0.5, 0.8], "outline": {"color": "#000000", "width": 3}}],
        },
    }


def run_batch(reel, rows, jobs=2):
    """`rows` rows of the 5 s 720p template rendered by one `reel batch -jJOBS`, against as many separate
    `reel render --set …` processes one after another (what a shell loop does) and against one render's time × rows.
    Per-row overhead: the batch's wall time outside its renders (reading, validating and probing every row before
    the first render, and starting up) divided by the rows; also the validation alone (`--dry-run`) per row."""
    folder = WORK / "batch"
    shutil.rmtree(folder, ignore_errors=True)
    (folder / "photos").mkdir(parents=True)
    (folder / "out").mkdir()
    (folder / "single").mkdir()
    for k in range(BATCH_PHOTOS):
        run_quietly(["ffmpeg", "-v", "error", "-f", "lavfi", "-i", f"{SOURCES[k % len(SOURCES)][1]}",
                     "-vf", f"select=eq(n\\,{10 * k})", "-frames:v", "1", str(folder / "photos" / f"p{k}.png")],
                    "batch photo")
    template = folder / "card.json"
    template.write_text(json.dumps(batch_template(), indent=2) + "\n")
    table = [("row-%03d" % n, f"Card number {n}", f"p{n % BATCH_PHOTOS}") for n in range(1, rows + 1)]
    with open(folder / "rows.csv", "w") as handle:
        handle.write("id,title,photo\n")
        for row in table:
            handle.write(",".join(row) + "\n")
    print(f"\n== batch: {rows} rows of a {BATCH_SECONDS} s {WIDTH}x{HEIGHT} template (a title and a photo per row)",
          flush=True)

    def render_args(row, out_folder):
        ident, title, photo = row
        return [str(reel), "render", str(template), "--set", f"id={ident}", "--set", f"title={title}",
                "--set", f"photo={photo}", "-o", str(out_folder / f"{ident}.mp4"), "--force", "-q"]

    single = measure(render_args(table[0], folder / "single"), "batch: one render")
    print(f"   one render:            wall {single.wall:8.2f} s  cpu {single.cpu:8.2f} s", flush=True)
    dry = measure([str(reel), "batch", str(template), str(folder / "rows.csv"), "-o", str(folder / "out/{{id}}.mp4"),
                   "--dry-run", "-q"], "batch --dry-run")
    print(f"   batch --dry-run:       wall {dry.wall:8.2f} s  ({dry.wall / rows * 1000:.1f} ms a row to read, fill, "
          f"probe and validate)", flush=True)
    start = time.perf_counter()
    separate_cpu = 0.0
    for row in table:
        separate_cpu += measure(render_args(row, folder / "single"), "batch: separate render").cpu
    separate = time.perf_counter() - start
    print(f"   {rows} reel render:      wall {separate:8.2f} s  cpu {separate_cpu:8.2f} s", flush=True)
    manifest = folder / "manifest.jsonl"
    batch = measure([str(reel), "batch", str(template), str(folder / "rows.csv"), "-o", str(folder / "out/{{id}}.mp4"),
                     "-j", str(jobs), "--manifest", str(manifest), "--force", "-q"], "reel batch")
    print(f"   reel batch -j{jobs}:        wall {batch.wall:8.2f} s  cpu {batch.cpu:8.2f} s", flush=True)
    lines = [json.loads(line) for line in manifest.read_text().splitlines()]
    done = sum(1 for line in lines if line["status"] == "done")
    # Time outside every render: the batch's wall time less the union of its rows' render intervals (`started`
    # counts from the command's beginning). The tail where fewer rows than jobs remain is inside a render, so it
    # is not counted as overhead; start-up, reading, probing, validation and exit are.
    spans = sorted((line["started"], line["started"] + line["seconds"]) for line in lines
                   if line.get("started") is not None)
    busy, reach = 0.0, 0.0
    for begin, end in spans:
        if end > reach:
            busy += end - max(begin, reach)
            reach = end
    overhead = max(0.0, batch.wall - busy) / rows
    speedup = separate / batch.wall
    print(f"   batch / separate processes: {speedup:.2f}x faster (target >= 1.0: {'met' if speedup >= 1.0 else 'missed'}); "
          f"one render x {rows} = {single.wall * rows:.2f} s, batch / that: {single.wall * rows / batch.wall:.2f}x", flush=True)
    print(f"   per-row overhead of the batch (wall outside its renders / rows): {overhead * 1000:.1f} ms "
          f"(target < 50 ms: {'met' if overhead < 0.05 else 'missed'}); rows done {done}/{rows}", flush=True)
    durations = {round(probe_duration(folder / "out" / f"{row[0]}.mp4"), 2) for row in table[:3]}
    print(f"   output durations (first rows): {sorted(durations)} s", flush=True)
    return {"single": [single], "dry-run": [dry], "batch": [batch],
            "separate": [Measurement(wall=separate, cpu=separate_cpu, max_rss_kib=0)]}


def decoded_audio_digest(path):
    """SHA-256 of the file's first audio stream decoded to 16-bit samples."""
    decoded = subprocess.run(["ffmpeg", "-v", "error", "-i", str(path), "-map", "0:a:0", "-f", "s16le", "-"],
                             stdout=subprocess.PIPE, check=True).stdout
    return hashlib.sha256(decoded).hexdigest()


def parse_arguments():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reel", default=str(REPO / ".build/release/reel"), help="reel binary (default: %(default)s)")
    parser.add_argument("--rounds", type=int, default=5, help="timed rounds per tool and case (default: %(default)s)")
    parser.add_argument("--warmup", type=int, default=1, help="untimed rounds first (default: %(default)s)")
    parser.add_argument("--cases", default=",".join(COMPARISONS),
                        help=f"comma-separated comparisons to run: {', '.join(COMPARISONS)} (default: all)")
    parser.add_argument("--memory-minutes", default="1,10",
                        help="timeline lengths in minutes for the memory part; empty to skip (default: %(default)s)")
    parser.add_argument("--ffmpeg-only", action="store_true",
                        help="run only the ffmpeg side and write the reel projects (no reel binary needed)")
    parser.add_argument("--ffmpeg-input-seek", action="store_true",
                        help="ffmpeg seeks each input with -ss/-t instead of trim filters from the start")
    parser.add_argument("--json", metavar="PATH", help="also write every measurement to PATH as JSON")
    parser.add_argument("--chunk-minutes", type=int, default=10,
                        help="timeline length of the chunked-rendering part; 0 to skip (default: %(default)s)")
    parser.add_argument("--smart-gop", type=int, default=30,
                        help="keyframe interval of the smart-render part's 30 fps source (default: %(default)s)")
    parser.add_argument("--batch-rows", type=int, default=100,
                        help="rows of the batch part (reel batch -j2 against separate renders); 0 to skip (default: %(default)s)")
    parser.add_argument("--smart-codec", choices=["h264", "hevc"], default="h264",
                        help="codec of the smart-render part's source and output (default: %(default)s)")
    parser.add_argument("--smart-rounds", type=int, default=3,
                        help="timed rounds of the smart-render part; 0 to skip (default: %(default)s)")
    parser.add_argument("--effects-rounds", type=int, default=3,
                        help="timed rounds of the effects part (1080p LUT, blurred region, chroma key vs none); 0 to skip "
                             "(default: %(default)s)")
    parser.add_argument("--cut-minutes", type=int, default=60,
                        help="length of the cut part's source in minutes (reel cut against silencedetect); 0 to skip "
                             "(default: %(default)s)")
    parser.add_argument("--cut-rounds", type=int, default=3, help="timed rounds of the cut part (default: %(default)s)")
    parser.add_argument("--scene-minutes", type=int, default=5,
                        help="length of the scene part's moving 1080p source, 0 to skip it (default: %(default)s)")

    parser.add_argument("--audio-effects-rounds", type=int, default=0,
                        help="timed rounds of the optional audio-effects part (the voice preset on a long mono talk vs "
                             "a 1080p re-encode as long); 0 skips it (default: %(default)s)")
    parser.add_argument("--audio-effects-seconds", type=int, default=600,
                        help="length of the audio-effects part's talk (default: %(default)s; issue 37 says an hour, 3600)")
    parser.add_argument("--report-minutes", type=int, default=10,
                        help="length of the report part's 1080p render (reel report vs the render); 0 to skip "
                             "(default: %(default)s)")
    parser.add_argument("--report-rounds", type=int, default=1,
                        help="timed rounds of the report part (default: %(default)s)")
    parser.add_argument("--layers-rounds", type=int, default=3,
                        help="timed rounds of the layers part (20 uses of a lower-third composition vs its layers inline, "
                             "a track-matted overlay vs none; 40 s at 640x360); 0 to skip (default: %(default)s)")
    parser.add_argument("--renditions-rounds", type=int, default=3,
                        help="timed rounds of the renditions part (three sizes in one pass vs three renders); 0 to "
                             "skip (default: %(default)s)")
    args = parser.parse_args()
    if args.rounds < 1 or args.warmup < 0:
        parser.error("--rounds must be at least 1 and --warmup at least 0")
    if args.smart_gop < 1:
        parser.error("--smart-gop must be at least 1")
    try:
        args.memory_minutes = [int(m) for m in args.memory_minutes.split(",") if m.strip()]
    except ValueError:
        parser.error("--memory-minutes takes whole minutes, e.g. 1,10")
    args.cases = [c.strip() for c in args.cases.split(",") if c.strip()]
    unknown = [c for c in args.cases if c not in COMPARISONS]
    if unknown:
        parser.error(f"unknown case(s) {', '.join(unknown)}; known: {', '.join(COMPARISONS)}")
    return args


def check_tools(args):
    for tool in ("ffmpeg", "ffprobe"):
        if shutil.which(tool) is None:
            raise BenchError(f"{tool} is not on PATH (make deps installs it)")
    reel = Path(args.reel)
    if not args.ffmpeg_only and not (reel.is_file() and os.access(reel, os.X_OK)):
        raise BenchError(f"reel binary not found at {reel}; run `make build` first, pass --reel PATH, "
                         "or use --ffmpeg-only")
    return reel


def main():
    args = parse_arguments()
    try:
        reel = check_tools(args)
        if (args.cases or args.memory_minutes or args.chunk_minutes > 0 or args.smart_rounds > 0
                or args.renditions_rounds > 0):
            ensure_media()
        cases = [COMPARISONS[name](args) for name in args.cases]
        print(f"bench: {args.rounds} rounds (+{args.warmup} warm-up), interleaved; "
              f"h264 crf {CRF} preset {ENCODER_PRESET}, aac {AUDIO_BITRATE // 1000}k; {os.cpu_count()} CPUs")
        for case in cases:
            run_comparison(case, reel, args.rounds, args.warmup, args.ffmpeg_only)
        print_table(cases)
        print_peak_memory(cases)
        memory = [] if args.ffmpeg_only or not args.memory_minutes else run_memory(reel, args.memory_minutes)
        smart = {} if args.ffmpeg_only or args.smart_rounds < 1 else run_smart(reel, args.smart_rounds, args.warmup, args.smart_gop,
                                                                                      args.smart_codec)
        chunked = {} if args.ffmpeg_only or args.chunk_minutes < 1 else run_chunks(reel, args.chunk_minutes)
        batched = {} if args.ffmpeg_only or args.batch_rows < 1 else run_batch(reel, args.batch_rows)
        effects = {} if args.ffmpeg_only or args.effects_rounds < 1 else run_effects(reel, args.effects_rounds, args.warmup)
        renditions = ({} if args.ffmpeg_only or args.renditions_rounds < 1
                      else run_renditions(reel, args.renditions_rounds, args.warmup))
        layers = {} if args.ffmpeg_only or args.layers_rounds < 1 else run_layers(reel, args.layers_rounds, args.warmup)
        cut = ({} if args.ffmpeg_only or args.cut_minutes < 1 or args.cut_rounds < 1
               else run_cut(reel, args.cut_minutes, args.cut_rounds, args.warmup))
        scenes = ({} if args.ffmpeg_only or args.scene_minutes < 1 or args.cut_rounds < 1
                  else run_scenes(reel, args.scene_minutes, args.cut_rounds, args.warmup))

        reported = ({} if args.ffmpeg_only or args.report_minutes < 1 or args.report_rounds < 1
                    else run_report(reel, args.report_minutes, args.report_rounds, args.warmup))
        audio_effects = ({} if args.ffmpeg_only or args.audio_effects_rounds < 1
                         else run_audio_effects(reel, args.audio_effects_rounds, args.warmup, args.audio_effects_seconds))
    except BenchError as error:
        print(f"bench: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("bench: interrupted", file=sys.stderr)
        return 130
    if args.json:
        report = {
            "cases": {case.name: {tool: [vars(m) for m in runs] for tool, runs in case.results.items()}
                      for case in cases},
            "loadAverages": {case.name: case.load for case in cases},
            "memory": [{"minutes": minutes, "clips": clips, **vars(m)} for minutes, clips, m in memory],
            "smart": {tool: [vars(m) for m in runs] for tool, runs in smart.items()},
            "chunks": {step: [vars(m) for m in runs] for step, runs in chunked.items()},
            "batch": {step: [vars(m) for m in runs] for step, runs in batched.items()},
            "effects": {name: [vars(m) for m in runs] for name, runs in effects.items()},
            "renditions": {name: [vars(m) for m in runs] for name, runs in renditions.items()},
            "layers": {name: [vars(m) for m in runs] for name, runs in layers.items()},
            "cut": {name: [vars(m) for m in runs] for name, runs in cut.items()},
            "scenes": {name: [vars(m) for m in runs] for name, runs in scenes.items()},
            "report": {name: [vars(m) for m in runs] for name, runs in reported.items()},

            "audioEffects": {name: [vars(m) for m in runs] for name, runs in audio_effects.items()},
        }
        Path(args.json).write_text(json.dumps(report, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
