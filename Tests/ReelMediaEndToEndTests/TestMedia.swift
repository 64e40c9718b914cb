import Foundation
import ReelMedia
import ReelTestSupport
import ReelTime

/// Runs ffmpeg quietly and fails when it does.
func ffmpeg(_ arguments: [String]) throws {
    try runChecked("ffmpeg", ["-nostdin", "-v", "error", "-y"] + arguments)
}

/// `ffprobe -show_entries <entries>` as key=value pairs of the first matching section.
func probeEntries(_ path: String, stream: String? = nil, entries: String) throws -> [String: String] {
    var arguments = ["-v", "error"]
    if let stream { arguments += ["-select_streams", stream] }
    arguments += ["-show_entries", entries, "-of", "default=noprint_wrappers=1", path]
    let result = try run("ffprobe", arguments)
    var values: [String: String] = [:]
    for line in result.stdoutText.split(separator: "\n") {
        let parts = line.split(separator: "=", maxSplits: 1)
        if parts.count == 2, values[String(parts[0])] == nil { values[String(parts[0])] = String(parts[1]) }
    }
    return values
}

/// A fresh folder under the system temporary directory, one per test process.
func scratchFolder() throws -> String {
    try Scratch.folder.get()
}

private enum Scratch {
    static let folder: Result<String, Error> = Result {
        MediaLogLevel.quiet.apply()
        let path = NSTemporaryDirectory() + "reel-media-tests-\(getpid())"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }
}

/// A unique path in the scratch folder with the given file extension.
func scratchPath(_ name: String) throws -> String {
    try scratchFolder() + "/\(UUID().uuidString.prefix(8))-\(name)"
}

/// The Y level of frame `index` in the gray-level test source.
func grayLevel(_ index: Int) -> UInt8 { UInt8(20 + 4 * index) }

/// The s16 value of sample `index` in the ramp test source (left channel; the right is its negation).
func rampSample(_ index: Int) -> Int16 { Int16((index % 2000) * 16 - 16000) }

/// Media generated once per test process.
struct Fixtures {
    /// 64x36, 30 fps, 2 s H.264 (-g 12 -bf 2) + 48 kHz stereo AAC, in mp4.
    let movie: String
    /// 48 frames at 24 fps of flat gray levels `grayLevel(i)`, lossless H.264 -g 12 -bf 2, in mp4.
    let grayMP4: String
    /// The same stream in MPEG-TS (large start offset).
    let grayTS: String
    /// 2 s of 48 kHz stereo s16 ramp (`rampSample`) in mov and wav.
    let rampMOV: String
    let rampWAV: String
    static let frameCount = 48
    static let rampSamples = 96000

    static let shared: Result<Fixtures, Error> = Result { try Fixtures() }

    private init() throws {
        movie = try scratchPath("movie.mp4")
        try ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=64x36:rate=30:duration=2",
                    "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=2",
                    "-c:v", "libx264", "-g", "12", "-bf", "2", "-pix_fmt", "yuv420p",
                    "-c:a", "aac", "-ac", "2", movie])

        let raw = try scratchPath("gray.yuv")
        var bytes: [UInt8] = []
        for index in 0..<Fixtures.frameCount {
            bytes += [UInt8](repeating: grayLevel(index), count: 64 * 36)
            bytes += [UInt8](repeating: 128, count: 2 * 32 * 18)
        }
        try Data(bytes).write(to: URL(fileURLWithPath: raw))
        grayMP4 = try scratchPath("gray.mp4")
        try ffmpeg(["-f", "rawvideo", "-pix_fmt", "yuv420p", "-s", "64x36", "-r", "24", "-i", raw,
                    "-c:v", "libx264", "-qp", "0", "-g", "12", "-bf", "2", "-pix_fmt", "yuv420p", grayMP4])
        grayTS = try scratchPath("gray.ts")
        try ffmpeg(["-i", grayMP4, "-c", "copy", "-f", "mpegts", grayTS])

        let pcm = try scratchPath("ramp.raw")
        var samples: [UInt8] = []
        samples.reserveCapacity(Fixtures.rampSamples * 4)
        for index in 0..<Fixtures.rampSamples {
            for value in [rampSample(index), -rampSample(index)] {
                let bits = UInt16(bitPattern: value)
                samples += [UInt8(bits & 0xFF), UInt8(bits >> 8)]
            }
        }
        try Data(samples).write(to: URL(fileURLWithPath: pcm))
        rampMOV = try scratchPath("ramp.mov")
        rampWAV = try scratchPath("ramp.wav")
        for output in [rampMOV, rampWAV] {
            try ffmpeg(["-f", "s16le", "-ar", "48000", "-ac", "2", "-i", pcm, "-c:a", "pcm_s16le", output])
        }
    }
}

/// Seconds as an exact time from a fraction.
func seconds(_ value: Int64, _ timescale: Int64 = 1) -> Time { Time(value: value, timescale: timescale) }
