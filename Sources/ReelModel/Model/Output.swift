import ReelCodecs
import ReelTime

/// A size in whole pixels.
public struct PixelSize: Sendable, Hashable, CustomStringConvertible {
    /// Width in pixels.
    public var width: Int
    /// Height in pixels.
    public var height: Int

    /// Creates a size of `width` × `height` pixels.
    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    /// `"1280×720"`.
    public var description: String { "\(width)×\(height)" }
}

/// An 8-bit sRGB colour with straight (not premultiplied) alpha, as written `"#RRGGBB"` or `"#RRGGBBAA"`.
public struct RGBAColor: Sendable, Hashable, CustomStringConvertible {
    /// Red, 0…255.
    public var red: UInt8
    /// Green, 0…255.
    public var green: UInt8
    /// Blue, 0…255.
    public var blue: UInt8
    /// Alpha, 0 (transparent) … 255 (opaque).
    public var alpha: UInt8

    /// Creates a colour from its components; alpha defaults to opaque.
    public init(red: UInt8, green: UInt8, blue: UInt8, alpha: UInt8 = 255) {
        self.red = red
        self.green = green
        self.blue = blue
        self.alpha = alpha
    }

    /// Opaque black, the default background.
    public static let black = RGBAColor(red: 0, green: 0, blue: 0)

    /// Parses `"#RRGGBB"` or `"#RRGGBBAA"` (hex digits in either case); nil for anything else.
    public init?(hex text: String) {
        let scalars = Array(text.unicodeScalars)
        guard scalars.first == "#", scalars.count == 7 || scalars.count == 9 else { return nil }
        var bytes: [UInt8] = []
        var index = 1
        while index < scalars.count {
            guard let high = scalars[index].hexDigitValue, let low = scalars[index + 1].hexDigitValue else { return nil }
            bytes.append(UInt8(high * 16 + low))
            index += 2
        }
        self.init(red: bytes[0], green: bytes[1], blue: bytes[2], alpha: bytes.count == 4 ? bytes[3] : 255)
    }

    /// `"#RRGGBB"` when opaque, else `"#RRGGBBAA"`, upper-case hex.
    public var description: String {
        let parts = alpha == 255 ? [red, green, blue] : [red, green, blue, alpha]
        return "#" + parts.map { byte in
            let digits = Array("0123456789ABCDEF")
            return String([digits[Int(byte >> 4)], digits[Int(byte & 15)]])
        }.joined()
    }
}

extension Unicode.Scalar {
    fileprivate var hexDigitValue: Int? {
        switch value {
        case 0x30...0x39: return Int(value) - 0x30
        case 0x41...0x46: return Int(value) - 0x41 + 10
        case 0x61...0x66: return Int(value) - 0x61 + 10
        default: return nil
        }
    }
}

/// Encoder quality/speed bundles (`output.preset`).
public enum Preset: String, Sendable, CaseIterable {
    /// Best quality, slowest.
    case high
    /// The default balance.
    case medium
    /// Smaller and faster.
    case low
    /// Fastest, for previews.
    case draft
}

/// The containers an output may be written in (`output.format`), with the codecs each can hold.
public enum ContainerFormat: String, Sendable, CaseIterable {
    /// MPEG-4 (`.mp4`).
    case mp4
    /// QuickTime (`.mov`).
    case mov
    /// Matroska (`.mkv`).
    case mkv
    /// WebM (`.webm`).
    case webm
    /// NUT (`.nut`).
    case nut
    /// MPEG transport stream (`.ts`).
    case ts
    /// MPEG-4 audio (`.m4a`): AAC alone (docs/outputs.md).
    case m4a
    /// MP3 (`.mp3`).
    case mp3
    /// Ogg Opus (`.opus`).
    case opus
    /// Ogg (`.ogg`): Opus or FLAC.
    case ogg
    /// FLAC (`.flac`).
    case flac
    /// WAVE (`.wav`): 16-bit PCM.
    case wav
    /// Animated GIF (`.gif`), pictures only (docs/outputs.md).
    case gif
    /// Animated WebP (`.webp`), or WebP stills when the path is an image sequence pattern.
    case webp
    /// Animated PNG (`.apng`).
    case apng
    /// PNG stills, one per frame: the path is an image sequence pattern (`frame_%05d.png`).
    case png
    /// JPEG stills, one per frame (`frame_%05d.jpg`, `.jpeg`).
    case jpg
    /// HLS (`.m3u8`): a media playlist and fragmented-MP4 segments beside it (docs/outputs.md).
    case m3u8
    /// MPEG-DASH (`.mpd`): a manifest and fragmented-MP4 segments beside it (docs/outputs.md).
    case mpd

    /// The container named by a file name's extension (case-insensitive), or nil.
    public init?(pathExtensionOf path: String) {
        let name = path.split(separator: "/", omittingEmptySubsequences: false).last.map(String.init) ?? path
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return nil }
        let ext = name[name.index(after: dot)...].lowercased()
        self.init(rawValue: ext == "jpeg" ? "jpg" : ext)
    }

    /// Whether the output is pictures without sound (an animation or an image sequence): the audio settings are
    /// ignored and no audio is mixed (docs/outputs.md).
    public var isPictureOnly: Bool { videoCodecs.first?.isPictureCodec == true }

    /// Whether the container is always an image sequence (`.png`, `.jpg`), whose path needs a frame number.
    public var isStillsOnly: Bool { self == .png || self == .jpg }

    /// Whether the container can be one animated file (`.gif`, `.webp`, `.apng`), which `output.loop` applies to.
    public var canAnimate: Bool { self == .gif || self == .webp || self == .apng }

    /// Whether it can be written front to back in one pass, as standard output must be (SPEC §7: mkv, nut, ts;
    /// WebM is Matroska). MP4 and MOV write their index after the media.
    public var isStreamable: Bool { [.mkv, .webm, .nut, .ts].contains(self) }

    /// Whether the output is a segmented package (HLS, DASH): a playlist or manifest and its segment files, written
    /// in a hidden folder and moved into place at the end (docs/outputs.md).
    public var isSegmented: Bool { self == .m3u8 || self == .mpd }

    /// Whether the container holds sound alone: the video composition is neither rendered nor decoded, and the
    /// output settings for pictures (`size`, `video`, …) are ignored (docs/outputs.md).
    public var isAudioOnly: Bool { videoCodecs.isEmpty }

    /// Video codecs reel offers in this container, in order of preference (the first is the default); none for the
    /// audio-only containers. Checks read them through `ContainerCapabilities`, which FFmpeg's answers may narrow.
    public var videoCodecs: [VideoCodec] {
        switch self {
        case .mp4: return [.h264, .hevc, .av1, .vp9]
        case .m3u8, .mpd: return [.h264]
        case .mov: return [.h264, .hevc, .prores]
        case .mkv: return [.h264, .hevc, .vp9, .av1, .prores]
        case .nut: return [.h264, .hevc, .vp9, .av1, .prores]
        case .webm: return [.vp9, .av1]
        case .ts: return [.h264, .hevc]
        case .m4a, .mp3, .opus, .ogg, .flac, .wav: return []
        case .gif: return [.gif]
        case .webp: return [.webp]
        case .apng: return [.apng]
        case .png: return [.png]
        case .jpg: return [.jpeg]
        }
    }

    /// Audio codecs reel offers in this container, in order of preference (the first is the default); checks read
    /// them through `ContainerCapabilities`.
    public var audioCodecs: [AudioCodec] {
        switch self {
        case .mp4: return [.aac, .opus]
        case .mov: return [.aac, .pcm]
        case .mkv, .nut: return [.aac, .opus, .pcm]
        case .webm: return [.opus]
        case .ts: return [.aac, .opus]
        case .m4a, .m3u8: return [.aac]
        // FFmpeg 5.1's DASH muxer takes AAC only (it has no codec table, and AAC is its one audio codec).
        case .mpd: return [.aac]
        case .mp3: return [.mp3]
        case .opus: return [.opus]
        case .ogg: return [.opus, .flac]
        case .flac: return [.flac]
        case .wav: return [.pcm]
        case .gif, .webp, .apng, .png, .jpg: return []
        }
    }
}

/// The pixel formats an output may request (`output.video.pixelFormat`), by their FFmpeg names.
public enum OutputPixelFormat: String, Sendable, CaseIterable {
    case yuv420p, yuv420p10le, yuv422p, yuv422p10le, yuv444p, yuv444p10le
}

/// `output.video`: the video encoder's settings. Nil members take the preset's value.
public struct VideoOutputSettings: Sendable, Hashable {
    /// The codec; default the container's first (h264, or vp9 for WebM).
    public var codec: VideoCodec
    /// Constant rate factor (h264/hevc 0–51, vp9/av1 0–63; prores has none).
    public var crf: Int?
    /// Target bit rate in bits per second.
    public var bitrate: Int?
    /// The encoder's own speed preset name (e.g. x264's `"slow"`), passed through.
    public var encoderPreset: String?
    /// FFmpeg pixel format name of the encoded video (e.g. `"yuv420p"`), one of `OutputPixelFormat`'s; nil: the
    /// codec's default.
    public var pixelFormat: String?
    /// Maximum keyframe interval in frames.
    public var gop: Int?
    /// Smart render: copy untouched stretches of H.264 sources as they are and re-encode only the rest
    /// (docs/smart-render.md). A reel addition to SPEC §2.1.
    public var smart: Bool = false

    /// Creates video settings; everything but the codec defaults to nil.
    public init(codec: VideoCodec, crf: Int? = nil, bitrate: Int? = nil, encoderPreset: String? = nil,
                pixelFormat: String? = nil, gop: Int? = nil) {
        self.codec = codec
        self.crf = crf
        self.bitrate = bitrate
        self.encoderPreset = encoderPreset
        self.pixelFormat = pixelFormat
        self.gop = gop
    }

    /// The pixel format the encoder writes: `pixelFormat`, or the codec's default
    /// (`yuv422p10le` for ProRes, `yuv420p` otherwise).
    public var effectivePixelFormat: String {
        pixelFormat ?? (codec == .prores ? "yuv422p10le" : "yuv420p")
    }

    /// Whether the encoded picture subsamples chroma horizontally (4:2:0 and 4:2:2): then widths must be even.
    public var needsEvenWidth: Bool { !effectivePixelFormat.hasPrefix("yuv444") }

    /// Whether the encoded picture subsamples chroma vertically (4:2:0): then heights must be even.
    public var needsEvenHeight: Bool { effectivePixelFormat.hasPrefix("yuv420") || effectivePixelFormat == "nv12" }
}

/// `output.audio.loudness`: the loudness the final mix is normalised to, measured as ITU-R BS.1770-4 and EBU R128
/// define it (docs/outputs.md).
public struct LoudnessTarget: Sendable, Hashable {
    /// Integrated (programme) loudness to reach, LUFS (−70 … −5).
    public var integrated: Double
    /// True-peak ceiling, dBTP (−9 … 0): a limiter keeps the gained mix under it.
    public var truePeak: Double
    /// Loudness range (LRA) the programme should stay within, LU (1 … 50); measured and reported, never enforced.
    public var range: Double?

    /// The streaming and podcast default: −16 LUFS, −1 dBTP.
    public static let streaming = LoudnessTarget(integrated: -16, truePeak: -1)

    /// Creates a target.
    public init(integrated: Double, truePeak: Double, range: Double? = nil) {
        self.integrated = integrated
        self.truePeak = truePeak
        self.range = range
    }
}

/// `output.audio`: the audio encoder's settings.
public struct AudioOutputSettings: Sendable, Hashable {
    /// The codec; default the container's first (aac, or opus for WebM).
    public var codec: AudioCodec
    /// Target bit rate in bits per second; nil: the preset's.
    public var bitrate: Int?
    /// Output sample rate in Hz (default 48000).
    public var sampleRate: Int
    /// Output channel count, 1 or 2 (default 2).
    public var channels: Int
    /// The loudness the mix is normalised to; nil leaves it where the mix lands.
    public var loudness: LoudnessTarget?
    /// Filters run on the whole mix before loudness normalisation (docs/effects.md, "Audio effects"), times in
    /// movie seconds. Empty: none.
    public var effects: [AudioEffect] = []

    /// Creates audio settings.
    public init(codec: AudioCodec, bitrate: Int? = nil, sampleRate: Int = 48000, channels: Int = 2,
                loudness: LoudnessTarget? = nil) {
        self.codec = codec
        self.bitrate = bitrate
        self.sampleRate = sampleRate
        self.channels = channels
        self.loudness = loudness
    }
}

/// `output`: where and how the rendered movie is written (SPEC §2.1).
public struct OutputSettings: Sendable, Equatable {
    /// The output file as written (relative to the project folder); nil when the CLI must supply `-o`.
    public var path: String?
    /// The container: as written in `format`, else inferred from the path's extension; nil only without either.
    public var format: ContainerFormat?
    /// The canvas size in pixels before `renderScale`; nil: the first video clip's display size (compile fills it).
    public var size: PixelSize?
    /// Output frames per second; nil: from the first video clip (compile fills it).
    public var frameRate: Rational?
    /// 0 < renderScale ≤ 1: render and write at size × renderScale, all geometry scaled. Default 1.
    public var renderScale: Rational
    /// Colour shown where no layer covers the canvas.
    public var background: RGBAColor
    /// Encoder quality/speed bundle.
    public var preset: Preset
    /// Video encoder settings.
    public var video: VideoOutputSettings
    /// Audio encoder settings; nil when `"audio": false` (no audio stream).
    public var audio: AudioOutputSettings?
    /// Container metadata in document order.
    public var metadata: [(key: String, value: String)]
    /// Export only this part of the timeline (composition time); nil: all of it.
    public var range: TimeRange?
    /// Whether `range` runs to the composition's end, whatever its written end (`--range 10..`): compile sets
    /// the end once the composition's length is known.
    public var rangeRunsToEnd = false
    /// The composition's end (composition time) when later than the last clip.
    public var end: Time?
    /// Whether MP4/MOV are written with the index at the front.
    public var faststart: Bool
    /// `.gif`, `.webp`, `.apng`: how many times the animation plays, 0 for ever; nil: the default, for ever.
    public var loop: Int?
    /// `.m3u8`, `.mpd`: the segments' length in seconds (keyframes are forced at every boundary); nil: 6 s.
    public var segmentDuration: Time?
    /// `.m3u8` in `outputs`: the master playlist that lists this rendition (docs/outputs.md); nil: the render's default.
    public var master: String?
    /// A poster (a single `.png` or `.jpg` in `outputs`): the timeline time of its picture; nil: the export's start.
    public var posterTime: Time?
    /// The canvas of a sound-only project (an audio-only output, or nothing to see) that does not set `size`:
    /// 1280×720, the background's picture in a video container, unused by an audio-only one (docs/outputs.md).
    public static let soundOnlySize = PixelSize(width: 1280, height: 720)
    /// The default segment length of HLS and DASH outputs: 6 s.
    public static let defaultSegmentDuration = Time(seconds: 6)
    // Whether `format`, `video.codec` and `audio.codec` were written, so a CLI `-o` with another
    // extension can re-derive the ones that were only defaults.
    var formatWasWritten = false
    var videoCodecWasWritten = false
    var audioCodecWasWritten = false
    // The keys of an entry of `outputs` that the project wrote (`preset`, `faststart`, `audio`, `audio.channels`,
    // …), so that `inheriting(from:)` fills in only the others.
    var writtenKeys: Set<String> = []

    /// Creates settings with every default of SPEC §2.1 (format and codecs from the path's extension).
    public init(path: String? = nil) {
        self.path = path
        let container = path.flatMap(ContainerFormat.init(pathExtensionOf:))
        format = container
        size = nil
        frameRate = nil
        renderScale = Rational(1)
        background = .black
        preset = .medium
        video = VideoOutputSettings(codec: container?.videoCodecs.first ?? .h264)
        audio = AudioOutputSettings(codec: container?.audioCodecs.first ?? .aac)
        metadata = []
        range = nil
        end = nil
        faststart = true
    }

    /// Compares every public setting (metadata in order).
    public static func == (lhs: OutputSettings, rhs: OutputSettings) -> Bool {
        lhs.path == rhs.path && lhs.format == rhs.format && lhs.size == rhs.size && lhs.frameRate == rhs.frameRate
            && lhs.renderScale == rhs.renderScale && lhs.background == rhs.background && lhs.preset == rhs.preset
            && lhs.video == rhs.video && lhs.audio == rhs.audio
            && lhs.metadata.map(\.key) == rhs.metadata.map(\.key) && lhs.metadata.map(\.value) == rhs.metadata.map(\.value)
            && lhs.range == rhs.range && lhs.end == rhs.end && lhs.faststart == rhs.faststart && lhs.loop == rhs.loop
            && lhs.segmentDuration == rhs.segmentDuration && lhs.master == rhs.master && lhs.posterTime == rhs.posterTime
    }

    /// This entry of `outputs` with every setting of the main output `main` that applies to it and that it does not
    /// set itself (docs/outputs.md, "What an entry inherits"). `size` and `frameRate` are filled by the compiler.
    ///
    /// - `preset`, `metadata`, `faststart`: always.
    /// - `loop`: by an animation; `segmentDuration`: by an HLS or DASH package.
    /// - `video.codec` (when `output` wrote it) and `audio.codec` (likewise): by an entry whose container holds it.
    /// - `video.crf`, `encoderPreset`, `pixelFormat`, `gop`: by an entry encoding with the same video codec;
    ///   `video.bitrate` only when its picture size is also the main output's (a rate is chosen for a size).
    /// - `audio.loudness`, `channels`: by an entry with sound; `sampleRate` when its codec can encode at that rate;
    ///   `audio.bitrate` when its audio codec is the main output's; `"audio": false` by an entry with pictures (an
    ///   audio-only entry keeps its sound).
    public func inheriting(from main: OutputSettings) -> OutputSettings {
        var entry = self
        let wrote = writtenKeys.contains
        if !wrote("preset") { entry.preset = main.preset }
        if !wrote("metadata") { entry.metadata = main.metadata }
        if !wrote("faststart") { entry.faststart = main.faststart }
        if !wrote("loop"), entry.format?.canAnimate == true, entry.framePattern == nil { entry.loop = main.loop }
        if !wrote("segmentDuration"), entry.format?.isSegmented == true { entry.segmentDuration = main.segmentDuration }
        if let container = entry.format, !container.isAudioOnly {
            if main.videoCodecWasWritten, !wrote("video.codec"), container.videoCodecs.contains(main.video.codec) {
                entry.video.codec = main.video.codec
            }
            if entry.video.codec == main.video.codec {
                if !wrote("video.crf") { entry.video.crf = entry.video.crf ?? main.video.crf }
                if !wrote("video.encoderPreset") { entry.video.encoderPreset = entry.video.encoderPreset ?? main.video.encoderPreset }
                if !wrote("video.pixelFormat") { entry.video.pixelFormat = entry.video.pixelFormat ?? main.video.pixelFormat }
                if !wrote("video.gop") { entry.video.gop = entry.video.gop ?? main.video.gop }
                if !wrote("video.bitrate"), (entry.size ?? main.size) == main.size {
                    entry.video.bitrate = entry.video.bitrate ?? main.video.bitrate
                }
            }
        }
        guard let mainAudio = main.audio else {
            if !wrote("audio"), entry.format?.isAudioOnly == false { entry.audio = nil }
            return entry
        }
        guard var audio = entry.audio, let container = entry.format else { return entry }
        if main.audioCodecWasWritten, !wrote("audio.codec"), container.audioCodecs.contains(mainAudio.codec) {
            audio.codec = mainAudio.codec
        }
        if !wrote("audio.loudness") { audio.loudness = audio.loudness ?? mainAudio.loudness }
        if !wrote("audio.channels") { audio.channels = mainAudio.channels }
        if !wrote("audio.sampleRate"), audio.codec.accepts(sampleRate: mainAudio.sampleRate) {
            audio.sampleRate = mainAudio.sampleRate
        }
        if !wrote("audio.bitrate"), audio.codec == mainAudio.codec { audio.bitrate = audio.bitrate ?? mainAudio.bitrate }
        entry.audio = audio
        return entry
    }

    /// The image sequence `path` names (a `%0Nd` in its file name), or nil for a single file.
    public var framePattern: FramePattern? {
        guard let path, case .pattern(let pattern) = FramePattern.parse(path) else { return nil }
        return pattern
    }

    /// Whether the output is an image sequence: a picture container (`.png .jpg .webp`) and a path with a frame
    /// number.
    public var isImageSequence: Bool { format?.isPictureOnly == true && framePattern != nil }

    /// Whether the output is a poster: one `.png` or `.jpg` picture (no frame number), allowed in `outputs`.
    public var isPoster: Bool { format?.isStillsOnly == true && framePattern == nil && path != nil && path != "-" }

    /// These settings with the output file replaced (the CLI's `-o`): a format that only repeats what the old
    /// path's extension implied is derived again from the new extension — a format not written at all, and the one
    /// `reel compile` writes out from the extension (a compiled project renders with `-o x.mkv` as its editing form
    /// does); a format that differs from the old path's extension was a choice and stays. Codecs not written follow
    /// the container. The diagnostics (path `$.output.path`) say when the container cannot be told or cannot hold
    /// a codec, as `capabilities` answers.
    public func replacingPath(_ newPath: String, capabilities: ContainerCapabilities = .builtIn)
        -> (settings: OutputSettings, diagnostics: [Diagnostic]) {
        var settings = self
        settings.path = newPath
        let implied = path.flatMap(ContainerFormat.init(pathExtensionOf:))
        if !formatWasWritten {
            settings.format = ContainerFormat(pathExtensionOf: newPath)
        } else if format == implied, let derived = ContainerFormat(pathExtensionOf: newPath) {
            settings.format = derived
        }
        if let container = settings.format { settings.codecsFollow(container) }
        let path = JSONPath.root.key("output").key("path")
        return (settings, settings.containerDiagnostics(at: path, capabilities: capabilities))
    }

    /// These settings for standard output (`-o -`) in `container`, which the caller has chosen among the
    /// streamable ones: codecs follow it as they follow `-o` (`replacingPath`). The diagnostics (path
    /// `$.output.path`) say what it cannot hold.
    public func streaming(in container: ContainerFormat, capabilities: ContainerCapabilities = .builtIn)
        -> (settings: OutputSettings, diagnostics: [Diagnostic]) {
        var settings = self
        settings.path = "-"
        settings.format = container
        settings.codecsFollow(container)
        return (settings, settings.containerDiagnostics(at: JSONPath.root.key("output").key("path"),
                                                        capabilities: capabilities))
    }

    /// Codecs that were not written become `container`'s defaults; a written codec stays, and the container
    /// diagnostics say when the new container cannot hold it.
    private mutating func codecsFollow(_ container: ContainerFormat) {
        if !videoCodecWasWritten, let codec = container.videoCodecs.first { video.codec = codec }
        if !audioCodecWasWritten, audio != nil, let codec = container.audioCodecs.first { audio?.codec = codec }
    }

    /// The container the project names in `output.format`, nil when it leaves it to the path's extension.
    public var writtenFormat: ContainerFormat? { formatWasWritten ? format : nil }

    /// These settings with the container `format` chosen as if written in `output.format` (the CLI's `--format`);
    /// codecs not written follow it, and the diagnostics say what it cannot hold.
    public func replacingFormat(_ container: ContainerFormat, capabilities: ContainerCapabilities = .builtIn)
        -> (settings: OutputSettings, diagnostics: [Diagnostic]) {
        var settings = self
        settings.format = container
        settings.formatWasWritten = true
        if !videoCodecWasWritten, let codec = container.videoCodecs.first { settings.video.codec = codec }
        if !audioCodecWasWritten, settings.audio != nil, let codec = container.audioCodecs.first {
            settings.audio?.codec = codec
        }
        return (settings, settings.containerDiagnostics(at: JSONPath.root.key("output").key("format"),
                                                        capabilities: capabilities))
    }

    /// Problems with the container (`$.output`'s checks of SPEC §5.1 and docs/outputs.md): unknown, unable to hold
    /// the chosen codecs as `capabilities` answers, or settings it cannot take — what the reader reports of a
    /// written `output`, for settings made in code.
    public func containerDiagnostics(capabilities: ContainerCapabilities = .builtIn) -> [Diagnostic] {
        containerDiagnostics(at: JSONPath.root.key("output").key("path"), capabilities: capabilities)
    }

    /// Problems with the container: unknown, or unable to hold the chosen codecs.
    ///
    /// `base` is the object's own path (`$.output`, or `$.outputs[i]` for a further output, which may also be a
    /// poster: one `.png` or `.jpg` picture).
    func containerDiagnostics(at path: JSONPath, base: JSONPath = JSONPath.root.key("output"),
                              allowsPoster: Bool = false, capabilities: ContainerCapabilities) -> [Diagnostic] {
        guard let container = format else {
            let names = ContainerFormat.allCases.map(\.rawValue).joined(separator: ", ")
            if let written = self.path {
                return [Diagnostic(.error, path: path, message: "cannot tell the container from \"\(written)\"",
                                   hint: "use one of the extensions .\(ContainerFormat.allCases.map(\.rawValue).joined(separator: " .")) or set output.format to one of \(names)")]
            }
            return []
        }
        var found: [Diagnostic] = []
        // An audio-only file ignores the picture settings, so any project can be written as one.
        if container.isAudioOnly, audio == nil {
            found.append(Diagnostic(.error, path: base.key("audio"),
                                    message: "\(container.rawValue) holds audio only, but output.audio is false",
                                    hint: "remove \"audio\": false, or write a video container"))
        }
        if !container.isAudioOnly, !capabilities.canHold(container, video: video.codec) {
            found.append(Diagnostic(.error, path: base.key("video").key("codec"),
                                    message: "\(container.rawValue) cannot hold \(video.codec.rawValue) video",
                                    hint: "use one of \(capabilities.videoCodecs(in: container).map(\.rawValue).joined(separator: ", "))"))
        }
        if segmentDuration != nil, !container.isSegmented {
            found.append(Diagnostic(.error, path: base.key("segmentDuration"),
                                    message: "segmentDuration applies to HLS and DASH, not to a \(container.rawValue) output",
                                    hint: "remove segmentDuration, or write a .m3u8 or .mpd"))
        }
        if container.isSegmented, video.smart {
            found.append(Diagnostic(.error, path: base.key("video").key("smart"),
                                    message: "a smart render copies the sources' pictures, whose keyframes do not fall on the \(container.rawValue) segment boundaries",
                                    hint: "remove smart"))
        }
        // libavformat's HLS and DASH muxers expand `%d` and `$Number$`-style templates in the names they derive
        // from the playlist's, so such a name writes segments under other names than the playlist lists.
        if container.isSegmented, let written = self.path,
           let name = written.split(separator: "/").last, name.contains("%") || name.contains("$") {
            found.append(Diagnostic(.error, path: path,
                                    message: "\"\(name)\": the \(container.rawValue) muxer expands % and $ in the names of "
                                        + "the segments it derives from the playlist's",
                                    hint: "use a name without % or $, like index.\(container.rawValue)"))
        }
        if master != nil, container != .m3u8 {
            found.append(Diagnostic(.error, path: base.key("master"),
                                    message: "master names the master playlist of HLS renditions, not of a \(container.rawValue) output",
                                    hint: "remove master, or write a .m3u8"))
        }
        if container.isPictureOnly {
            return found + pictureDiagnostics(container, at: path, base: base, allowsPoster: allowsPoster)
        }
        if loop != nil {
            found.append(Diagnostic(.error, path: base.key("loop"),
                                    message: "loop applies to animations, not to a \(container.rawValue) output",
                                    hint: "remove loop, or write a .gif, .webp or .apng"))
        }
        if let audio, !capabilities.canHold(container, audio: audio.codec) {
            found.append(Diagnostic(.error, path: base.key("audio").key("codec"),
                                    message: "\(container.rawValue) cannot hold \(audio.codec.rawValue) audio",
                                    hint: "use one of \(capabilities.audioCodecs(in: container).map(\.rawValue).joined(separator: ", "))"))
        }
        return found
    }

    /// Problems of an animation or image sequence (`container` is a picture container; its codec is checked with
    /// every container's): the path's frame number, `loop`, and the video encoder settings, which these encoders do not have (the preset sets their quality).
    /// The audio settings are ignored: these files have no sound.
    private func pictureDiagnostics(_ container: ContainerFormat, at path: JSONPath, base: JSONPath,
                                    allowsPoster: Bool) -> [Diagnostic] {
        var found: [Diagnostic] = []
        let parsed = self.path.map(FramePattern.parse) ?? FramePattern.Parse.none
        let sequence: Bool
        switch parsed {
        case .invalid(let reason):
            found.append(Diagnostic(.error, path: path, message: reason,
                                    hint: "write the numbered part of the file names as %05d, like frame_%05d.png"))
            sequence = true
        case .pattern:
            sequence = true
            if !container.isStillsOnly, container != .webp {
                found.append(Diagnostic(.error, path: path,
                                        message: "a \(container.rawValue) output is one animated file, not an image sequence",
                                        hint: "remove the frame number from the name, or write .png, .jpg or .webp stills"))
            }
        case .none:
            sequence = false
            if container.isStillsOnly, !allowsPoster, let written = self.path, written != "-" {
                found.append(Diagnostic(.error, path: path,
                                        message: "a \(container.rawValue) output is an image sequence, but \"\(written)\" has no frame number",
                                        hint: "put %05d in the file name (frame_%05d.\(container.rawValue)); for one picture use reel thumbnail"))
            }
        }
        if posterTime != nil, sequence || !container.isStillsOnly {
            found.append(Diagnostic(.error, path: base.key("at"),
                                    message: "at is the time of a poster (one .png or .jpg in outputs), not of a \(container.rawValue) output",
                                    hint: "remove at"))
        }
        if loop != nil, sequence || !container.canAnimate {
            found.append(Diagnostic(.error, path: base.key("loop"),
                                    message: "loop applies to an animated .gif, .webp or .apng, not to an image sequence",
                                    hint: "remove loop"))
        }
        let video = base.key("video")
        let codec = self.video.codec.rawValue
        let unsupported: [(key: String, present: Bool)] = [
            ("crf", self.video.crf != nil), ("bitrate", self.video.bitrate != nil),
            ("encoderPreset", self.video.encoderPreset != nil), ("pixelFormat", self.video.pixelFormat != nil),
            ("gop", self.video.gop != nil), ("smart", self.video.smart),
        ]
        for (key, present) in unsupported where present {
            found.append(Diagnostic(.error, path: video.key(key),
                                    message: "a \(container.rawValue) output (\(codec)) has no \(key)",
                                    hint: "remove output.video.\(key); output.preset sets the quality (docs/outputs.md)"))
        }
        return found
    }
}
