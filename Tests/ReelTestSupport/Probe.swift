import Foundation

/// What ffprobe reports about a media file (`-show_streams -show_format`).
public struct ProbeResult: Sendable {
    /// One stream as ffprobe reports it; fields ffprobe leaves out are nil.
    public struct Stream: Sendable {
        /// The stream's index in the container.
        public let index: Int
        /// `"video"`, `"audio"`, `"subtitle"`, `"data"`, ….
        public let codecType: String
        /// ffprobe's codec name, e.g. `"h264"`, `"aac"`, `"pcm_s16le"`.
        public let codecName: String?
        /// Coded width in pixels (video).
        public let width: Int?
        /// Coded height in pixels (video).
        public let height: Int?
        /// `r_frame_rate` as ffprobe prints it, e.g. `"30000/1001"`.
        public let rFrameRate: String?
        /// `avg_frame_rate` as ffprobe prints it.
        public let avgFrameRate: String?
        /// `time_base`, e.g. `"1/15360"`.
        public let timeBase: String?
        /// Stream duration in seconds.
        public let duration: Double?
        /// Frame count from the container's index (`nb_frames`), when it has one.
        public let frameCount: Int?
        /// Samples per second (audio).
        public let sampleRate: Int?
        /// Channel count (audio).
        public let channels: Int?
        /// Display rotation in degrees from the display-matrix side data, as ffprobe reports it.
        public let rotation: Int?
    }

    /// Container duration in seconds.
    public let formatDuration: Double?
    /// ffprobe's format name, e.g. `"mov,mp4,m4a,3gp,3g2,mj2"`.
    public let formatName: String?
    /// All streams, in container order.
    public let streams: [Stream]

    /// The first stream of the given type (`"video"`, `"audio"`), if any.
    public func first(_ codecType: String) -> Stream? {
        streams.first { $0.codecType == codecType }
    }
}

/// Runs `ffprobe -v error -show_streams -show_format -of json` on `url`.
public func probe(_ url: URL) throws -> ProbeResult {
    let data = try runChecked("ffprobe", ["-v", "error", "-show_streams", "-show_format", "-of", "json", url.path])
    guard let root = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
        throw SupportError("ffprobe printed no JSON object for \(url.path)")
    }
    let format = root["format"] as? [String: Any] ?? [:]
    let streams = (root["streams"] as? [[String: Any]] ?? []).map { stream in
        let sideData = stream["side_data_list"] as? [[String: Any]] ?? []
        return ProbeResult.Stream(
            index: integer(stream["index"]) ?? -1,
            codecType: stream["codec_type"] as? String ?? "",
            codecName: stream["codec_name"] as? String,
            width: integer(stream["width"]),
            height: integer(stream["height"]),
            rFrameRate: stream["r_frame_rate"] as? String,
            avgFrameRate: stream["avg_frame_rate"] as? String,
            timeBase: stream["time_base"] as? String,
            duration: number(stream["duration"]),
            frameCount: integer(stream["nb_frames"]),
            sampleRate: integer(stream["sample_rate"]),
            channels: integer(stream["channels"]),
            rotation: sideData.lazy.compactMap { integer($0["rotation"]) }.first
        )
    }
    return ProbeResult(
        formatDuration: number(format["duration"]),
        formatName: format["format_name"] as? String,
        streams: streams)
}

/// Number of frames ffprobe decodes (`-count_frames`) in the selected stream, `"v:0"` by default.
public func countFrames(_ url: URL, stream: String = "v:0") throws -> Int {
    let data = try runChecked("ffprobe", [
        "-v", "error", "-count_frames", "-select_streams", stream,
        "-show_entries", "stream=nb_read_frames", "-of", "csv=p=0", url.path,
    ])
    let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    guard let count = Int(text) else {
        throw SupportError("ffprobe -count_frames printed \"\(text)\" for \(url.path)")
    }
    return count
}

/// Presentation times in seconds of every decoded frame of the selected stream
/// (`best_effort_timestamp_time`), in decode output order.
public func frameTimes(_ url: URL, stream: String = "v:0") throws -> [Double] {
    let data = try runChecked("ffprobe", [
        "-v", "error", "-select_streams", stream,
        "-show_entries", "frame=best_effort_timestamp_time", "-of", "csv=p=0", url.path,
    ])
    return try String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline).map { line in
        let field = line.split(separator: ",").first.map(String.init) ?? ""
        guard let seconds = Double(field) else {
            throw SupportError("ffprobe printed frame time \"\(line)\" for \(url.path)")
        }
        return seconds
    }
}

// ffprobe prints most numbers as JSON strings ("48000", "1.000000") and a few as numbers.
private func integer(_ value: Any?) -> Int? {
    switch value {
    case let number as Int: number
    case let text as String: Int(text)
    case let number as NSNumber: number.intValue
    default: nil
    }
}

private func number(_ value: Any?) -> Double? {
    switch value {
    case let number as Double: number
    case let number as Int: Double(number)
    case let text as String: Double(text)
    case let number as NSNumber: number.doubleValue
    default: nil
    }
}

/// The average PSNR (dB; infinity when identical) an ffmpeg `psnr` filter printed in `stderr`.
public func averagePSNR(_ stderr: String) throws -> Double {
    guard let range = stderr.range(of: "average:") else { throw SupportError("no PSNR in: \(stderr.suffix(400))") }
    let value = stderr[range.upperBound...].prefix { !$0.isWhitespace }
    return value == "inf" ? .infinity : (Double(value) ?? 0)
}
