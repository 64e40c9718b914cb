#!/usr/bin/env python3
"""Benchmark reel against the ffmpeg CLI doing the same work.

Each comparison case builds a reel project and an equivalent ffmpeg command
line over the same cached source media. Rounds interleave the two tools
(alternating which goes first) and record every child's wall time and
user+sys CPU time from os.wait4. The table shows the medians and the ratios
reel / ffmpeg. A second part measures reel's peak resident memory (ru_maxrss)
for long timelines, to show that it does not grow with timeline length.

Method and caveats: docs/benchmarks.md. Standard library only.
"""

import argparse
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


class BenchError(Exception):
    """A failure that ends the run with a message instead of a traceback."""


@dataclass
class Measurement:
    """One child process: wall seconds, user+sys CPU seconds, peak RSS in KiB."""

    wall: float
    cpu: float
    max_rss_kib: int


@dataclass
class Comparison:
    """A case: the same work as a reel project and as an ffmpeg command line."""

    name: str
    description: str
    timeline_seconds: float
    reel_project: dict
    ffmpeg_args: list
    reel_output: Path
    ffmpeg_output: Path
    results: dict = field(default_factory=lambda: {"reel": [], "ffmpeg": []})


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


# ---------------------------------------------------------------- media


def source_path(name):
    return MEDIA / f"{name}.mp4"


def ensure_media():
    """Generates the cached source clips that are missing (10 s, H.264 + AAC 48 kHz stereo)."""
    MEDIA.mkdir(parents=True, exist_ok=True)
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
    inputs, graph, pads = [], [], []
    for index, (name, start, end) in enumerate(cuts):
        if input_seek:
            inputs += ["-ss", f"{start}", "-t", f"{end - start}", "-i", str(source_path(name))]
            graph.append(f"[{index}:v]setpts=PTS-STARTPTS[v{index}]")
            graph.append(f"[{index}:a]asetpts=PTS-STARTPTS[a{index}]")
        else:
            inputs += ["-i", str(source_path(name))]
            graph.append(f"[{index}:v]trim=start={start}:end={end},setpts=PTS-STARTPTS[v{index}]")
            graph.append(f"[{index}:a]atrim=start={start}:end={end},asetpts=PTS-STARTPTS[a{index}]")
        pads.append(f"[v{index}][a{index}]")
    graph.append(f"{''.join(pads)}concat=n={len(cuts)}:v=1:a=1[v][a]")
    return (["ffmpeg", "-v", "error", "-nostdin", "-y"] + inputs
            + ["-filter_complex", ";".join(graph), "-map", "[v]", "-map", "[a]"]
            + ffmpeg_encoder_args(ENCODER_PRESET) + [str(output)])


def write_project(project, name):
    WORK.mkdir(parents=True, exist_ok=True)
    path = WORK / f"{name}.json"
    path.write_text(json.dumps(project, indent=2) + "\n")
    return path


# ---------------------------------------------------------------- cases
# Each case function returns a Comparison; add new ones (dissolve vs xfade,
# audio mixing vs amix, …) and list them in COMPARISONS.


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


COMPARISONS = {"cuts": cuts_case}


# ---------------------------------------------------------------- running


def reel_render_args(reel, project):
    return [str(reel), "render", str(project), "--force", "-q"]


def run_comparison(case, reel, rounds, warmup, ffmpeg_only):
    project = write_project(case.reel_project, case.name)
    commands = {"ffmpeg": case.ffmpeg_args}
    if not ffmpeg_only:
        commands["reel"] = reel_render_args(reel, project)
    order = sorted(commands)
    print(f"\n== {case.name}: {case.description}; timeline {case.timeline_seconds:.3f} s", flush=True)
    for tool in order:
        print(f"   {tool}: {' '.join(map(str, commands[tool]))}", flush=True)
    for _ in range(warmup):
        for tool in order:
            measure(commands[tool], f"{case.name} warm-up ({tool})")
    for round_index in range(rounds):
        # Alternate who goes first so drift (thermal, cache, other load) hits both alike.
        sequence = order if round_index % 2 == 0 else list(reversed(order))
        for tool in sequence:
            result = measure(commands[tool], f"{case.name} round {round_index + 1} ({tool})")
            case.results[tool].append(result)
            print(f"   round {round_index + 1} {tool:6} wall {result.wall:7.2f} s  cpu {result.cpu:7.2f} s", flush=True)
    for tool, output in (("reel", case.reel_output), ("ffmpeg", case.ffmpeg_output)):
        if tool in commands:
            print(f"   {tool} output duration: {probe_duration(output):.3f} s", flush=True)


def print_table(cases):
    print("\nMedians (seconds) and ratios reel / ffmpeg; lower is better")
    header = f"{'case':10} {'reel wall':>10} {'ffmpeg wall':>12} {'ratio':>7}   {'reel cpu':>9} {'ffmpeg cpu':>11} {'ratio':>7}"
    print(header)
    print("-" * len(header))
    for case in cases:
        medians = {tool: (statistics.median(m.wall for m in runs), statistics.median(m.cpu for m in runs))
                   for tool, runs in case.results.items() if runs}
        ffmpeg_wall, ffmpeg_cpu = medians["ffmpeg"]
        if "reel" in medians:
            reel_wall, reel_cpu = medians["reel"]
            print(f"{case.name:10} {reel_wall:10.2f} {ffmpeg_wall:12.2f} {reel_wall / ffmpeg_wall:7.2f}"
                  f"   {reel_cpu:9.2f} {ffmpeg_cpu:11.2f} {reel_cpu / ffmpeg_cpu:7.2f}")
        else:
            print(f"{case.name:10} {'-':>10} {ffmpeg_wall:12.2f} {'-':>7}   {'-':>9} {ffmpeg_cpu:11.2f} {'-':>7}")


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
    args = parser.parse_args()
    if args.rounds < 1 or args.warmup < 0:
        parser.error("--rounds must be at least 1 and --warmup at least 0")
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
        ensure_media()
        cases = [COMPARISONS[name](args) for name in args.cases]
        print(f"bench: {args.rounds} rounds (+{args.warmup} warm-up), interleaved; "
              f"h264 crf {CRF} preset {ENCODER_PRESET}, aac {AUDIO_BITRATE // 1000}k; {os.cpu_count()} CPUs")
        for case in cases:
            run_comparison(case, reel, args.rounds, args.warmup, args.ffmpeg_only)
        print_table(cases)
        memory = [] if args.ffmpeg_only else run_memory(reel, args.memory_minutes)
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
            "memory": [{"minutes": minutes, "clips": clips, **vars(m)} for minutes, clips, m in memory],
        }
        Path(args.json).write_text(json.dumps(report, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
