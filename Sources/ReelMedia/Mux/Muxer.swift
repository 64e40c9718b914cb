internal import CFFmpeg
import ReelCodecs
import ReelTime

/// Where a muxer writes.
public enum MuxerDestination: Sendable {
    /// A file at this path (created or truncated); `:` in the path never selects a protocol.
    case file(String)
    /// The process's standard output (`pipe:1`): a streamable container (mkv, webm, nut, mpegts), or MP4/MOV,
    /// which are then written fragmented.
    case standardOutput

    var name: String {
        switch self {
        case .file(let path): path
        case .standardOutput: "standard output"
        }
    }
}

/// The output AVFormatContext shared by a muxer and its encoders; frees in deinit.
final class OutputContext {
    let context: UnsafeMutablePointer<AVFormatContext>
    let name: String
    var started = false
    var finished = false

    init(context: UnsafeMutablePointer<AVFormatContext>, name: String) {
        self.context = context
        self.name = name
    }

    deinit {
        // Only reached without a successful finish(), which closes and reports; nothing can be reported here.
        // FFmpeg 5.1's HLS and DASH muxers free their segment muxers on deinit but not the in-memory buffer the
        // open segment is written to (found by LeakSanitizer on a render cancelled mid-segment); their trailer
        // closes it. The files written are removed by the caller either way.
        if started, !finished, ["hls", "dash"].contains(formatName) { _ = av_write_trailer(context) }
        if context.pointee.pb != nil { avio_closep(&context.pointee.pb) }
        avformat_free_context(context)
    }

    /// The muxer's short name (`mp4`, `matroska`, …).
    var formatName: String { context.pointee.oformat.map { String(cString: $0.pointee.name) } ?? "" }

    /// Whether the container is MP4 or QuickTime (or one of their relatives): an index written after the media,
    /// `movflags`, sample entries such as `hvc1`.
    var isQuickTimeFamily: Bool { Muxer.quickTimeFamily.contains(formatName) }

    /// Throws unless the header is written and the trailer is not: the only time packets may be written.
    func requireWriting() throws(MediaError) {
        guard started, !finished else {
            throw MediaError(.internal, "a packet written outside start() … finish()", path: name)
        }
    }

    /// Adds a stream with the codec parameters and time base of `source`, for packets copied from it.
    func addStream(copying source: UnsafeMutablePointer<AVStream>) throws(MediaError) -> UnsafeMutablePointer<AVStream> {
        let stream = try newStream()
        try check(avcodec_parameters_copy(stream.pointee.codecpar, source.pointee.codecpar), .internal,
                  "cannot copy the parameters of stream \(source.pointee.index)", function: "avcodec_parameters_copy",
                  path: name)
        // The source container's codec tag may mean nothing (or something else) in this one: let the muxer pick.
        stream.pointee.codecpar.pointee.codec_tag = 0
        stream.pointee.time_base = source.pointee.time_base
        stream.pointee.avg_frame_rate = source.pointee.avg_frame_rate
        stream.pointee.r_frame_rate = source.pointee.r_frame_rate
        return stream
    }

    private func newStream() throws(MediaError) -> UnsafeMutablePointer<AVStream> {
        guard let stream = avformat_new_stream(context, nil) else {
            throw MediaError(.internal, "cannot add a stream", path: name)
        }
        return stream
    }

    /// Rescales `packet` from `timeBase` to its stream's and hands it to the interleaver (which takes it).
    func write(_ packet: UnsafeMutablePointer<AVPacket>, from timeBase: AVRational,
               to stream: UnsafeMutablePointer<AVStream>) throws(MediaError) {
        packet.pointee.stream_index = stream.pointee.index
        // The stream's time base is final only after the header: read it now, not at setup.
        av_packet_rescale_ts(packet, timeBase, stream.pointee.time_base)
        try check(av_interleaved_write_frame(context, packet), .io, "cannot write a packet",
                  function: "av_interleaved_write_frame", path: name)
    }
}

/// The muxer's container as an encoder's destination: each encoder's stream is added here, described from the opened
/// encoder, and its packets are written into it.
extension OutputContext: StreamSink {
    var path: String? { name }

    var wantsGlobalHeader: Bool {
        guard let format = context.pointee.oformat else { return false }
        return format.pointee.flags & AVFMT_GLOBALHEADER != 0
    }

    func requireHolds(_ codec: StreamCodec) throws(MediaError) {
        guard let format = context.pointee.oformat else { throw MediaError(.internal, "output without a format") }
        guard Muxer.holds(format, codec.id) else {
            throw MediaError(.unsupported, "the \(formatName) container cannot hold \(codec.label)", path: name)
        }
    }

    /// Adds a stream carrying what the encoder produces (its parameters and time base; a video stream's average frame
    /// rate, and HEVC's `hvc1` sample entry in the MP4 family, which Apple players require rather than `hev1`), tagged
    /// as its labels say. Its packets are written between `start()` and `finish()` only.
    func open(_ encoded: EncodedStream) throws(MediaError) -> PacketSink {
        let codec = encoded.codec, labels = encoded.labels
        let stream = try newStream()
        try check(avcodec_parameters_from_context(stream.pointee.codecpar, codec), .internal,
                  "cannot describe the \(encoded.encoderName) stream", function: "avcodec_parameters_from_context", path: name)
        stream.pointee.time_base = codec.pointee.time_base
        if codec.pointee.codec_type == AVMEDIA_TYPE_VIDEO {
            stream.pointee.avg_frame_rate = codec.pointee.framerate
            if isQuickTimeFamily, codec.pointee.codec_id == AV_CODEC_ID_HEVC {
                stream.pointee.codecpar.pointee.codec_tag = fourCC("hvc1")
            }
        }
        if let language = labels.language {
            try check(av_dict_set(&stream.pointee.metadata, "language", language, 0), .internal,
                      "cannot set the stream's language", function: "av_dict_set", path: name)
        }
        if let isDefault = labels.isDefault { stream.pointee.disposition = isDefault ? AV_DISPOSITION_DEFAULT : 0 }
        let timeBase = codec.pointee.time_base
        return { [self] (packet: Packet) throws(MediaError) in
            try requireWriting()
            try write(packet.avPacket, from: timeBase, to: stream)
        }
    }
}

/// A stream of a `Muxer` that copied packets are written to (see `Muxer.addStream(copying:of:)`).
public final class MuxerStream {
    /// Index of the stream in the output container.
    public let index: Int
    let stream: UnsafeMutablePointer<AVStream>
    /// Time base of the packets given to `Muxer.write(_:to:)`: the source stream's.
    let packetTimeBase: AVRational
    let output: OutputContext

    init(stream: UnsafeMutablePointer<AVStream>, packetTimeBase: AVRational, output: OutputContext) {
        index = Int(stream.pointee.index)
        self.stream = stream
        self.packetTimeBase = packetTimeBase
        self.output = output
    }
}

/// Writes encoded streams into a container with libavformat.
///
/// Output is flagged bitexact, so the same input gives byte-identical files (no dates, no random
/// UIDs). Call order: `init`, `addVideo`/`addAudio`/`addStream(copying:of:)`, `start`, encoders' `encode`
/// and `write(_:to:)`, `finish`. Not thread-safe: confine the muxer and its encoders to one thread.
public final class Muxer {
    private let output: OutputContext
    private var encoders: [Flushable] = []
    private let formatName: String
    /// Whether the container is MP4 or MOV (sample entries such as `hvc1`).
    var isQuickTimeFamily: Bool { output.isQuickTimeFamily }
    private let faststart: Bool
    /// Writing to a pipe, which cannot seek: MP4 and MOV are then fragmented.
    private let isPipe: Bool
    /// Whether MP4 and MOV keep every metadata tag (`movflags=+use_metadata_tags`), not only the keys QuickTime
    /// knows (title, artist, …); set before `start()`. Matroska and NUT always keep every tag.
    public var keepsEveryTag = false
    /// MP4 and MOV: ticks per second of the movie's own clock (`movie_timescale`, FFmpeg's default 1000), in which
    /// the edit lists' lengths are counted; the sample rate makes an audio track's edit list exact. Set before
    /// `start()`.
    public var movieTimescale: Int?
    /// The muxer's own options (`loop` of the gif and webp muxers, `plays` of apng, `start_number` of image2), in
    /// order; set before `start()`.
    public var options: [(key: String, value: String)] = []
    /// Chapters (issue 39): start and end in the output's time and a title, in order; set before `start()`. MP4 and
    /// MOV get a QuickTime text chapter track and a Nero `chpl` box, Matroska and WebM their Chapters element; muxers
    /// without chapters ignore them.
    public var chapters: [(start: Time, end: Time, title: String)] = []

    /// Creates the container `formatName` (`mp4`, `mov`, `matroska`, `webm`, `nut`, `mpegts`, …)
    /// writing to `destination`, with container-level `metadata` tags in order.
    ///
    /// Opens (creates or truncates) the destination file at once; failure is `.io`.
    /// An unknown container is `.unsupported`.
    public init(destination: MuxerDestination, formatName: String, metadata: [(String, String)],
                faststart: Bool) throws(MediaError) {
        let url: String
        switch destination {
        case .file(let path): url = "file:" + path
        case .standardOutput: url = "pipe:1"
        }
        func unknownFormat(_: Int32 = 0) -> MediaError {
            MediaError(.unsupported, "unknown container format '\(formatName)'", path: destination.name)
        }
        var made: UnsafeMutablePointer<AVFormatContext>? = nil
        // The URL is kept in the context: the mov muxer reopens it to move the index for faststart.
        try check(avformat_alloc_output_context2(&made, nil, formatName, url), function: "avformat_alloc_output_context2",
                  unknownFormat)
        guard let context = made else { throw unknownFormat() }
        output = OutputContext(context: context, name: destination.name)
        self.formatName = formatName
        self.faststart = faststart
        if case .standardOutput = destination { isPipe = true } else { isPipe = false }
        guard let format = context.pointee.oformat else { throw unknownFormat() }
        context.pointee.flags |= AVFMT_FLAG_BITEXACT
        for (key, value) in metadata {
            try check(av_dict_set(&context.pointee.metadata, key, value, 0), .internal, "cannot set the \(key) tag",
                      function: "av_dict_set", path: destination.name)
        }
        if format.pointee.flags & AVFMT_NOFILE == 0 {
            try check(avio_open(&context.pointee.pb, url, AVIO_FLAG_WRITE), .io, "cannot create the output",
                      function: "avio_open", path: destination.name)
        }
    }
    /// Muxers of the MP4/QuickTime family.
    static let quickTimeFamily: Set<String> = ["mp4", "mov", "ipod", "ismv", "3gp", "3g2", "psp", "f4v"]

    /// Whether container `formatName` can hold the given codecs (`avformat_query_codec`); nil means no stream of that kind.
    public static func canHold(formatName: String, video: VideoCodec?, audio: AudioCodec?) -> Bool {
        guard let format = av_guess_format(formatName, nil, nil) else { return false }
        if let video, !holds(format, video.codecID) { return false }
        if let audio, !holds(format, audio.codecID) { return false }
        return true
    }

    /// Whether `format` can hold `codec`: the one answer every check of reel's gives (before a render, and when a
    /// stream is added).
    static func holds(_ format: UnsafePointer<AVOutputFormat>, _ codec: AVCodecID) -> Bool {
        let name = String(cString: format.pointee.name)
        // NUT's tag tables lack ProRes, so FFmpeg says no; but the muxer writes the tag the prores_ks encoder sets
        // on the stream itself (apch, apcn, …), and FFmpeg reads such files back (the ffmpeg CLI writes them too).
        if name == "nut", codec == AV_CODEC_ID_PRORES { return true }
        let answer = avformat_query_codec(format, codec, FF_COMPLIANCE_NORMAL)
        if answer >= 0 { return answer == 1 }
        // Muxers without codec tables (mpegts) cannot be asked; accept what they are known to carry.
        if format.pointee.video_codec == codec || format.pointee.audio_codec == codec { return true }
        if name == "mpegts" {
            return [AV_CODEC_ID_H264, AV_CODEC_ID_HEVC, AV_CODEC_ID_AAC, AV_CODEC_ID_OPUS].contains(codec)
        }
        if name == "ogg" { return [AV_CODEC_ID_OPUS, AV_CODEC_ID_FLAC, AV_CODEC_ID_VORBIS].contains(codec) }
        // image2 writes each packet as a file whatever its codec; reel gives it PNG, JPEG and WebP stills.
        if name == "image2" { return [AV_CODEC_ID_PNG, AV_CODEC_ID_MJPEG, AV_CODEC_ID_WEBP].contains(codec) }
        return false
    }

    /// Adds a video stream and opens its encoder.
    ///
    /// Throws `.unsupported` when no encoder for the codec is available, the container cannot hold
    /// it, or the encoder rejects the settings (pixel format, preset, size).
    public func addVideo(_ settings: VideoEncoderSettings) throws(MediaError) -> VideoEncoder {
        try requireSetup()
        let encoder = try VideoEncoder(settings, sink: output)
        encoders.append(encoder)
        return encoder
    }

    /// Adds an audio stream and opens its encoder.
    ///
    /// Throws `.unsupported` when no encoder for the codec is available, the container cannot hold
    /// it, or the encoder rejects the sample rate or channel count.
    public func addAudio(_ settings: AudioEncoderSettings) throws(MediaError) -> AudioEncoder {
        try requireSetup()
        let encoder = try AudioEncoder(settings, sink: output)
        encoders.append(encoder)
        return encoder
    }

    /// Adds a text subtitle stream and opens its encoder (after the video and audio streams).
    ///
    /// Throws `.unsupported` when the encoder is missing or rejects the header.
    public func addSubtitles(_ settings: SubtitleStreamSettings) throws(MediaError) -> SubtitleEncoder {
        try requireSetup()
        return try SubtitleEncoder(settings, sink: output)
    }

    /// Adds a stream with the codec parameters of stream `streamIndex` of `reader`, for its packets unchanged
    /// (stream copy); write them with `write(_:to:)`.
    ///
    /// Throws `.noSuchStream` when the reader has no such stream. Whether the container can hold the
    /// codec is known only at `start()`, which throws then.
    public func addStream(copying streamIndex: Int, of reader: PacketReader) throws(MediaError) -> MuxerStream {
        try requireSetup()
        guard let source = reader.input.stream(streamIndex) else {
            throw MediaError(.noSuchStream, "has no stream \(streamIndex)", path: reader.input.path)
        }
        let stream = try output.addStream(copying: source)
        return MuxerStream(stream: stream, packetTimeBase: source.pointee.time_base, output: output)
    }

    private func requireSetup() throws(MediaError) {
        guard !output.started else { throw MediaError(.internal, "streams must be added before start()", path: output.name) }
    }

    /// Writes the container header; `faststart` puts the index first for mov/mp4 (`movflags=+faststart`).
    public func start() throws(MediaError) {
        guard !output.started else { throw MediaError(.internal, "start() called twice", path: output.name) }
        guard output.context.pointee.nb_streams > 0 else {
            throw MediaError(.internal, "no streams to write", path: output.name)
        }
        var options = Options()
        let isMov = output.isQuickTimeFamily
        var movFlags = ""
        if isMov && isPipe {
            // A pipe cannot seek back to write the index: fragmented MP4 puts an empty index first and a small
            // one before each fragment, which players read as they go.
            movFlags = "+frag_keyframe+empty_moov+default_base_moof"
        } else if faststart && isMov {
            movFlags = "+faststart"
        }
        if keepsEveryTag && isMov { movFlags += "+use_metadata_tags" }
        if !movFlags.isEmpty { try options.set("movflags", movFlags) }
        if let movieTimescale, isMov { try options.set("movie_timescale", String(movieTimescale)) }
        for option in self.options { try options.set(option.key, option.value) }
        try addChapters()
        try check(avformat_write_header(output.context, &options.avDictionary), .io, "cannot write the \(formatName) header",
                  function: "avformat_write_header", path: output.name)
        output.started = true
    }

    /// Puts `chapters` into the format context, where the muxers look for them when writing the header: times in
    /// nanoseconds (Matroska's own unit; the mov muxer rescales to its movie clock), rounded to the nearest. The
    /// context owns them from then on (`avformat_free_context` frees each chapter, its tags and the table).
    private func addChapters() throws(MediaError) {
        guard !chapters.isEmpty else { return }
        let context = output.context
        guard let table = av_malloc_array(chapters.count, MemoryLayout<UnsafeMutablePointer<AVChapter>?>.stride) else {
            throw MediaError(.internal, "cannot allocate the chapter table", path: output.name)
        }
        context.pointee.chapters = table.bindMemory(to: UnsafeMutablePointer<AVChapter>?.self, capacity: chapters.count)
        context.pointee.nb_chapters = 0
        let nanoseconds: Int64 = 1_000_000_000
        for (index, chapter) in chapters.enumerated() {
            guard let memory = av_mallocz(MemoryLayout<AVChapter>.size) else {
                throw MediaError(.internal, "cannot allocate a chapter", path: output.name)
            }
            let made = memory.bindMemory(to: AVChapter.self, capacity: 1)
            context.pointee.chapters[index] = made
            context.pointee.nb_chapters += 1
            made.pointee.id = Int64(index + 1)
            made.pointee.time_base = AVRational(num: 1, den: Int32(nanoseconds))
            made.pointee.start = av_rescale(chapter.start.value, nanoseconds, chapter.start.timescale)
            made.pointee.end = av_rescale(chapter.end.value, nanoseconds, chapter.end.timescale)
            try check(av_dict_set(&made.pointee.metadata, "title", chapter.title, 0), .internal, "cannot set a chapter's title",
                      function: "av_dict_set", path: output.name)
        }
    }

    /// Writes `packet`, read by a `PacketReader` from the stream that `stream` copies, into `stream`.
    ///
    /// Timestamps are rescaled from the source stream's time base to the output stream's. The muxer
    /// takes the packet's data and leaves the packet blank, ready for the next read.
    public func write(_ packet: Packet, to stream: MuxerStream) throws(MediaError) {
        guard stream.output === output else {
            throw MediaError(.internal, "the stream belongs to another muxer", path: output.name)
        }
        guard output.started, !output.finished else {
            throw MediaError(.internal, "write called outside start() … finish()", path: output.name)
        }
        try output.write(packet.avPacket, from: stream.packetTimeBase, to: stream.stream)
    }

    /// Flushes every encoder (in the order added), writes the trailer and closes the destination.
    public func finish() throws(MediaError) {
        guard output.started else { throw MediaError(.internal, "finish() before start()", path: output.name) }
        guard !output.finished else { return }
        for encoder in encoders { try encoder.flush() }
        output.finished = true
        try check(av_write_trailer(output.context), .io, "cannot write the \(formatName) trailer",
                  function: "av_write_trailer", path: output.name)
        if output.context.pointee.pb != nil {
            try check(avio_closep(&output.context.pointee.pb), .io, "cannot close the output", function: "avio_closep",
                      path: output.name)
        }
    }
}

/// A container's four-character code (`hvc1`), as libavformat stores it in `codec_tag`.
func fourCC(_ text: String) -> UInt32 {
    text.utf8.prefix(4).enumerated().reduce(UInt32(0)) { $0 | UInt32($1.element) << (8 * UInt32($1.offset)) }
}
