internal import CFFmpeg
import Foundation
import ReelCodecs
import ReelTime
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Demuxers that read real media from one file. Playlists, concatenation, raw `data`, devices and
/// anything else that follows references to other resources are left out on purpose.
let mediaDemuxers = [
    "mov", "matroska", "avi", "mpegts", "mpeg", "mpegvideo", "m4v", "h264", "hevc", "av1", "ivf", "obu",
    "mp3", "wav", "w64", "aiff", "caf", "flac", "ogg", "aac", "loas", "ac3", "eac3", "dts", "truehd",
    "amr", "au", "wv", "tta", "ape", "nut", "flv", "asf", "mxf", "dv", "yuv4mpegpipe", "gif",
    "image2", "png_pipe", "jpeg_pipe", "webp_pipe", "bmp_pipe", "tiff_pipe",
].joined(separator: ",")

/// The URL scheme of `path` (`http` in `http://x`), or nil for a plain path.
///
/// A scheme is one or more of `A-Z a-z 0-9 + . -` followed by `:` before any `/`.
func urlScheme(of path: String) -> String? {
    var scheme = ""
    for character in path {
        if character == ":" { return scheme.isEmpty ? nil : scheme }
        guard character.isASCII, character.isLetter || character.isNumber || "+.-".contains(character) else {
            return nil
        }
        scheme.append(character)
    }
    return nil
}

/// Checks `path` against `policy` and the file system, and returns the URL to give libavformat.
///
/// Plain paths must name a readable regular file (symlinks to one are fine); they are never opened
/// here, so a FIFO or device cannot block. The result is `file:` + the absolute path, so a `:` in a
/// file name cannot select a protocol.
func vetInput(path: String, policy: MediaPolicy) throws(MediaError) -> (url: String, protocols: String) {
    var protocols = ["file"]
    var localPath = path
    if let scheme = urlScheme(of: path) {
        guard policy.allowedProtocols.contains(scheme) else {
            throw MediaError(.refusedProtocol,
                             "the '\(scheme):' protocol is refused; allow it with --allow-protocols \(scheme)",
                             path: path)
        }
        protocols.append(contentsOf: policy.allowedProtocols.sorted())
        let joined = protocols.joined(separator: ",")
        if scheme != "file" { return (path, joined) }
        localPath = String(path.dropFirst(5))
    }
    switch LocalFileState(path: localPath) {
    case .readable: break
    case .missing: throw MediaError(.missing, "no such file", path: path)
    case .unreadable(let reason): throw MediaError(.unreadable, "cannot read: \(reason)", path: path)
    case .notRegular(let what): throw MediaError(.notRegularFile, "is \(what), not a regular media file", path: path)
    }
    var absolute = localPath
    if !absolute.hasPrefix("/") {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        guard getcwd(&buffer, buffer.count) != nil else {
            throw MediaError(.io, "cannot determine the current directory", path: path)
        }
        let cwd = buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        absolute = cwd.hasSuffix("/") ? cwd + absolute : cwd + "/" + absolute
    }
    return ("file:" + absolute, protocols.joined(separator: ","))
}

/// An opened input (AVFormatContext) with stream information read; closes when released.
final class InputFile {
    private let owner: InputContext
    let path: String
    /// The media's start in seconds: the earliest start of its audio and video streams, exactly.
    let startTime: Time

    init(path givenPath: String, policy: MediaPolicy) throws(MediaError) {
        var options = Options()
        let url: String
        let protocols: String
        var format: UnsafePointer<AVInputFormat>?
        let path: String
        if let sequence = ImageSequenceInput(path: givenPath) {
            // A numbered image sequence: every frame vetted as a file, then the image2 demuxer reads the numbers
            // from the first one on, at the stated rate (frame k at k / rate).
            path = sequence.pattern
            let first = try sequence.vetFrames(displayPath: path)
            let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
            (url, protocols) = ("file:" + absolute, "file")
            format = av_find_input_format("image2")
            try options.set("pattern_type", "sequence")
            try options.set("framerate", "\(sequence.frameRate.numerator)/\(sequence.frameRate.denominator)")
            try options.set("start_number", String(first))
            try options.set("start_number_range", "1")
        } else {
            path = givenPath
            (url, protocols) = try vetInput(path: path, policy: policy)
            // The image2 demuxer would otherwise expand %d patterns and globs into other files.
            try options.set("pattern_type", "none")
        }
        self.path = path
        try options.set("protocol_whitelist", protocols)
        // A package's playlist opens its segments through the same whitelists (local files, media demuxers).
        let isPlaylist = policy.readsPackages && ["m3u8", "mpd"].contains(URL(fileURLWithPath: path).pathExtension.lowercased())
        try options.set("format_whitelist", mediaDemuxers + (isPlaylist ? ",hls,dash" : ""))
        var opened: UnsafeMutablePointer<AVFormatContext>? = nil
        let result = try check(avformat_open_input(&opened, url, format, &options.avDictionary),
                               function: "avformat_open_input") { code in
            if code == cff_averror(ENOENT) { return MediaError(.missing, "no such file", path: path) }
            if code == cff_averror(EACCES) { return MediaError(.unreadable, "permission denied", path: path) }
            return MediaError(.notMedia, "not a recognised media file (\(errorText(code)))", path: path)
        }
        guard let opened else {
            throw MediaError(.notMedia, "not a recognised media file (\(errorText(result)))", path: path)
        }
        let context = InputContext(opened: opened)
        try check(avformat_find_stream_info(context.avContext, nil), function: "avformat_find_stream_info") { code in
            MediaError(.notMedia, "cannot read stream information (\(errorText(code)))", path: path)
        }
        startTime = InputFile.earliestStart(context.avContext)
        owner = context
    }

    /// The AVFormatContext; valid while this object lives.
    var context: UnsafeMutablePointer<AVFormatContext> { owner.avContext }

    var streamCount: Int { Int(context.pointee.nb_streams) }

    func stream(_ index: Int) -> UnsafeMutablePointer<AVStream>? {
        guard index >= 0, index < streamCount, let streams = context.pointee.streams else { return nil }
        return streams[index]
    }

    /// Seconds from the media's start of `pts` in `timeBase`, or nil for AV_NOPTS_VALUE.
    func relativeTime(_ pts: Int64, _ timeBase: AVRational) -> Time? {
        guard pts != cff_nopts_value(), let absolute = exactTime(pts, timeBase) else { return nil }
        return try? absolute - startTime
    }

    private static func earliestStart(_ context: UnsafeMutablePointer<AVFormatContext>) -> Time {
        var earliest: Time?
        for index in 0..<Int(context.pointee.nb_streams) {
            guard let stream = context.pointee.streams[index] else { continue }
            let type = stream.pointee.codecpar.pointee.codec_type
            guard type == AVMEDIA_TYPE_VIDEO || type == AVMEDIA_TYPE_AUDIO,
                  stream.pointee.start_time != cff_nopts_value(),
                  let start = exactTime(stream.pointee.start_time, stream.pointee.time_base) else { continue }
            if earliest.map({ start < $0 }) ?? true { earliest = start }
        }
        if let earliest { return earliest }
        let start = context.pointee.start_time
        return start == cff_nopts_value() ? .zero : Time(value: start, timescale: Int64(AV_TIME_BASE))
    }
}

/// `count` × `timeBase` as an exact time, or nil when it does not fit.
func exactTime(_ count: Int64, _ timeBase: AVRational) -> Time? {
    guard timeBase.den > 0 else { return nil }
    let (value, overflow) = count.multipliedReportingOverflow(by: Int64(timeBase.num))
    if overflow { return nil }
    return Time(value: value, timescale: Int64(timeBase.den))
}

/// The largest count `c` with `c` × `timeBase` ≤ `time` (exact floor), clamped to Int64.
func floorCount(_ time: Time, _ timeBase: AVRational) -> Int64 {
    guard timeBase.num > 0, timeBase.den > 0 else { return 0 }
    let numerator = Int128(time.value) * Int128(timeBase.den)
    let denominator = Int128(time.timescale) * Int128(timeBase.num)
    var quotient = numerator / denominator
    if numerator % denominator != 0 && numerator < 0 { quotient -= 1 }
    return Int64(clamping: quotient)
}
