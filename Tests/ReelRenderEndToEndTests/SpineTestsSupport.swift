import Foundation
import ReelTestSupport
import Testing

/// Shared plumbing of the Spine suites: run `reel`, decode frames and samples with the ffmpeg CLI.
enum Spine {
    /// The `reel` binary under test.
    static func reel() throws -> URL {
        try builtExecutable(named: "reel")
    }

    /// Writes `project` as `name` in `folder` and runs `reel render` on it with `-q` and `extra` arguments.
    static func render(
        _ project: String, in folder: TemporaryDirectory, name: String = "project.json", extra: [String] = []
    ) throws -> ProcessResult {
        let path = folder.file(name)
        try project.write(to: path, atomically: true, encoding: .utf8)
        return try run(reel().path, ["render", path.path, "-q"] + extra)
    }

    /// Runs a tool and returns its stdout, throwing with its stderr when it fails.
    static func checked(_ tool: String, _ args: [String]) throws -> Data {
        let result = try run(tool, args)
        guard !result.terminatedBySignal, result.status == 0 else {
            throw SupportError("\(tool) \(args.joined(separator: " ")) failed (\(result.status)): \(result.stderrText)")
        }
        return result.stdout
    }

    /// Decodes every frame of the first video stream and returns its luma plane as stored (limited range:
    /// black 16, white 235) after `filter` (ffmpeg `-vf` syntax, applied after the decoder's own autorotation),
    /// expecting `width`×`height` pictures.
    static func grayFrames(_ url: URL, filter: String? = nil, width: Int, height: Int) throws -> [[UInt8]] {
        let chain = (filter.map { $0 + "," } ?? "") + "format=yuv420p,extractplanes=y"
        let data = try checked("ffmpeg", [
            "-v", "error", "-nostdin", "-i", url.path, "-map", "0:v:0", "-fps_mode", "passthrough",
            "-vf", chain, "-f", "rawvideo", "-",
        ])
        let frameBytes = width * height
        guard frameBytes > 0, data.count % frameBytes == 0 else {
            throw SupportError("decoded \(data.count) bytes from \(url.lastPathComponent), "
                + "not whole \(width)x\(height) gray frames")
        }
        let bytes = [UInt8](data)
        return stride(from: 0, to: bytes.count, by: frameBytes).map { Array(bytes[$0..<$0 + frameBytes]) }
    }

    /// The index each gray picture shows (-1 for none).
    static func indices(_ frames: [[UInt8]], width: Int, height: Int) -> [Int] {
        frames.map { IndexedMedia.decodeIndex(luma: $0, width: width, height: height) }
    }

    /// Format-level tags ffprobe reports (`format_tags`), keys lower-cased.
    static func formatTags(_ url: URL) throws -> [String: String] {
        let data = try checked("ffprobe", ["-v", "error", "-show_entries", "format_tags", "-of", "json", url.path])
        let root = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        let format = root?["format"] as? [String: Any]
        let tags = format?["tags"] as? [String: Any] ?? [:]
        var result: [String: String] = [:]
        for (key, value) in tags {
            result[key.lowercased()] = value as? String
        }
        return result
    }

    /// Whether the file decodes with `ffmpeg -v error -i FILE -f null -` printing nothing; returns what it printed.
    static func decodeErrors(_ url: URL) throws -> String {
        let result = try run("ffmpeg", ["-v", "error", "-nostdin", "-i", url.path, "-f", "null", "-"])
        return result.stderrText + (result.status == 0 ? "" : "exit status \(result.status)")
    }

    /// Power of `frequency` (Hz) in `samples` at `sampleRate`, by the Goertzel algorithm, normalised by length².
    static func goertzel(_ samples: ArraySlice<Float>, frequency: Double, sampleRate: Double) -> Double {
        let coefficient = 2 * cos(2 * Double.pi * frequency / sampleRate)
        var previous = 0.0, beforePrevious = 0.0
        for sample in samples {
            let current = Double(sample) + coefficient * previous - beforePrevious
            beforePrevious = previous
            previous = current
        }
        let power = previous * previous + beforePrevious * beforePrevious - coefficient * previous * beforePrevious
        return power / Double(max(1, samples.count * samples.count))
    }

    /// The first index where the two arrays differ, with both values, for readable failure messages.
    static func firstDifference(_ actual: [Int], _ expected: [Int]) -> String {
        for i in 0..<max(actual.count, expected.count) {
            let a = i < actual.count ? String(actual[i]) : "none"
            let e = i < expected.count ? String(expected[i]) : "none"
            if a != e { return "frame \(i): got \(a), expected \(e) (counts \(actual.count) vs \(expected.count))" }
        }
        return "equal"
    }
}
