import ReelCodecs
import ReelTime

/// Reads `output` and `outputs` (SPEC §2.1, docs/outputs.md): the container, codecs, sizes, rates and ranges.
/// It reads first: `output.frameRate` goes into the reading context, for the times read after it.
struct OutputReader: FieldReader {
    let sink: DiagnosticSink
    let context: ReadingContext

    /// `output` (SPEC §2.1). Reads frameRate first so later times may count frames.
    ///
    /// With `further`, `json` is an element of `outputs` (docs/outputs.md): its frame rate is its own (times in the
    /// document keep counting the main output's frames), its path is required (`-o` names the main output only), it
    /// may be a poster, and the keys the whole render shares (`range`, `end`, `renderScale`, `background`) are
    /// refused, as they belong to `output`.
    func readOutput(_ json: JSON?, _ path: JSONPath, further: Bool = false) -> OutputSettings {
        guard let json, let fields = object(json, path, .output) else {
            return OutputSettings()
        }
        var ownRate: Rational?
        if let rateJSON = fields["frameRate"] {
            if further {
                ownRate = readFrameRate(rateJSON, path.key("frameRate"))
            } else {
                context.frameRate = readFrameRate(rateJSON, path.key("frameRate"))
                context.frameRateIsBroken = context.frameRate == nil
            }
        }
        var outputPath: String?
        if let json = fields["path"] { outputPath = filePath(json, path.key("path")) }
        if further, fields["path"] == nil {
            error(path, "missing \"path\"", hint: "every entry of outputs names its own file (-o names the main output only)")
        }
        if further {
            for key in ["range", "end", "renderScale", "background"] where fields[key] != nil {
                error(path.key(key), "\(key) is shared by every output of the render",
                      hint: "set it in output; outputs[…] take the main output's")
            }
        }
        var output = OutputSettings(path: outputPath)
        output.frameRate = further ? ownRate : context.frameRate
        output.writtenKeys = Set(fields.members.map(\.key))
        for group in ["video", "audio"] {
            if let members = fields[group]?.value.objectValue?.members {
                output.writtenKeys.formUnion(members.map { group + "." + $0.key })
            }
        }

        if let json = fields["format"] {
            if let container: ContainerFormat = enumeration(json, path.key("format"), "container format") {
                output.format = container
                if let codec = container.videoCodecs.first { output.video.codec = codec }
                if let codec = container.audioCodecs.first { output.audio?.codec = codec }
            }
            output.formatWasWritten = true
        }
        if let json = fields["video"] { readVideoSettings(json, path.key("video"), into: &output) }
        if let json = fields["loop"] { output.loop = integer(json, path.key("loop"), in: 0...65535, what: "a play count") }
        if let json = fields["audio"] { readAudioSettings(json, path.key("audio"), into: &output) }
        if let json = fields["segmentDuration"] {
            output.segmentDuration = positiveDuration(json, path.key("segmentDuration"), what: "segmentDuration")
        }
        if let json = fields["master"] { output.master = filePath(json, path.key("master")) }
        if let json = fields["at"] {
            if further {
                output.posterTime = instant(json, path.key("at"))
            } else {
                error(path.key("at"), "at is the time of a poster, which is one of outputs",
                      hint: "move the poster into \"outputs\": [{\"path\": \"poster.jpg\", \"at\": 2}]")
            }
        }
        if further || !context.outputPathOverridden, fields["format"] == nil || output.format != nil {
            sink.append(contentsOf: output.containerDiagnostics(at: path.key("path"), base: path, allowsPoster: further,
                                                                capabilities: context.capabilities))
        }
        if let json = fields["size"], let size = size(json, path.key("size")) {
            output.size = size
            checkChromaParity(size, output.video, path.key("size"))
        }
        if let json = fields["renderScale"], let scale = rational(json, path.key("renderScale"), expected: "a scale") {
            if scale <= Rational(0) || scale > Rational(1) {
                error(path.key("renderScale"), "renderScale \(scale) is outside (0, 1]",
                      hint: "use a scale greater than 0 and at most 1, e.g. 0.5 for half size")
            } else {
                output.renderScale = scale
            }
        }
        if let json = fields["background"], let color = color(json, path.key("background")) {
            output.background = color
        }
        if let json = fields["preset"], let preset: Preset = enumeration(json, path.key("preset"), "preset") {
            output.preset = preset
        }
        if let json = fields["metadata"], let members = openObject(json, path.key("metadata")) {
            for member in members.members {
                if let value = string(member.value, path.key("metadata").key(member.key), nonEmpty: false) {
                    output.metadata.append((key: member.key, value: value))
                }
            }
        }
        if let json = fields["range"] { output.range = timeRange(json, path.key("range")) }
        if let json = fields["end"] { output.end = positiveDuration(json, path.key("end"), what: "end") }
        if let json = fields["faststart"], let value = bool(json, path.key("faststart")) { output.faststart = value }
        return output
    }

    /// `outputs`: further outputs of the same render, each read as `output` is (docs/outputs.md).
    func readOutputs(_ json: JSON?, _ path: JSONPath) -> [OutputSettings] {
        guard let json, let elements = array(json, path, expected: "an array of output objects") else { return [] }
        if elements.isEmpty {
            error(path, "outputs is empty", hint: "remove outputs, or add an object like {\"path\": \"out/small.mp4\"}")
        }
        return elements.map { readOutput($0.0, $0.1, further: true) }
    }

    func checkChromaParity(_ size: PixelSize, _ video: VideoOutputSettings, _ path: JSONPath) {
        let oddWidth = video.needsEvenWidth && size.width % 2 != 0
        let oddHeight = video.needsEvenHeight && size.height % 2 != 0
        guard oddWidth || oddHeight else { return }
        let even = PixelSize(width: oddWidth ? size.width - 1 : size.width, height: oddHeight ? size.height - 1 : size.height)
        let larger = PixelSize(width: oddWidth ? size.width + 1 : size.width, height: oddHeight ? size.height + 1 : size.height)
        error(path, "size \(size.width)×\(size.height) has an odd side, but \(video.effectivePixelFormat) output needs even sides",
              hint: "use [\(even.width), \(even.height)] or [\(larger.width), \(larger.height)]")
    }

    private func readVideoSettings(_ json: JSON, _ path: JSONPath, into output: inout OutputSettings) {
        guard let fields = object(json, path, .videoOutput) else { return }
        if let json = fields["codec"] {
            if let codec: VideoCodec = enumeration(json, path.key("codec"), "video codec") { output.video.codec = codec }
            output.videoCodecWasWritten = true
        }
        if let json = fields["crf"] {
            switch output.video.codec {
            case .prores:
                error(path.key("crf"), "prores has no crf", hint: "remove crf, or choose the quality with the preset")
            case .h264, .hevc:
                output.video.crf = integer(json, path.key("crf"), in: 0...51, what: "a crf")
            case .vp9, .av1:
                output.video.crf = integer(json, path.key("crf"), in: 0...63, what: "a crf")
            case .gif, .webp, .apng, .png, .jpeg:
                error(path.key("crf"), "\(output.video.codec.rawValue) has no crf",
                      hint: "remove crf; output.preset sets the quality (docs/outputs.md)")
            }
        }
        if let json = fields["bitrate"] { output.video.bitrate = bitrate(json, path.key("bitrate")) }
        if let json = fields["encoderPreset"] { output.video.encoderPreset = string(json, path.key("encoderPreset")) }
        if let json = fields["pixelFormat"], let name = string(json, path.key("pixelFormat")) {
            let known = OutputPixelFormat.allCases.map(\.rawValue)
            if known.contains(name) {
                output.video.pixelFormat = name
            } else {
                let hint = suggestion(for: name, among: known).map { "did you mean \"\($0)\"?" }
                    ?? "use one of " + known.joined(separator: ", ")
                error(path.key("pixelFormat"), "unknown pixel format \"\(name)\"", hint: hint)
            }
        }
        if let json = fields["gop"] { output.video.gop = integer(json, path.key("gop"), in: 1...100_000, what: "a keyframe interval") }
        if let json = fields["smart"], let value = bool(json, path.key("smart")) { output.video.smart = value }
    }

    private func readAudioSettings(_ json: JSON, _ path: JSONPath, into output: inout OutputSettings) {
        if case .bool(let enabled) = json.value {
            if !enabled { output.audio = nil }
            return
        }
        guard let fields = object(json, path, .audioOutput, expected: "an object or false") else { return }
        var audio = output.audio ?? AudioOutputSettings(codec: output.format?.audioCodecs.first ?? .aac)
        if let json = fields["codec"] {
            if let codec: AudioCodec = enumeration(json, path.key("codec"), "audio codec") { audio.codec = codec }
            output.audioCodecWasWritten = true
        }
        if let json = fields["bitrate"] { audio.bitrate = bitrate(json, path.key("bitrate")) }
        if let json = fields["sampleRate"], let rate = integer(json, path.key("sampleRate"), in: 8000...192_000, what: "a sample rate") {
            audio.sampleRate = rate
        }
        if let json = fields["channels"], let channels = integer(json, path.key("channels"), in: 1...2, what: "a channel count") {
            audio.channels = channels
        }
        if let json = fields["loudness"] { audio.loudness = readLoudness(json, path.key("loudness")) }
        if let json = fields["effects"] {
            audio.effects = AudioEffectReader(sharing: self).readAudioEffects(json, path.key("effects")) ?? []
        }
        let opusRates = AudioCodec.opusSampleRates
        if audio.codec == .opus, !audio.codec.accepts(sampleRate: audio.sampleRate) {
            error(path.key("sampleRate"), "opus cannot encode at \(audio.sampleRate) Hz",
                  hint: "use one of " + opusRates.map(String.init).joined(separator: ", "))
        }
        output.audio = audio
    }

    /// `output.audio.loudness`: `{"integrated": LUFS, "truePeak": dBTP, "range": LU}`, range optional.
    private func readLoudness(_ json: JSON, _ path: JSONPath) -> LoudnessTarget? {
        guard let fields = object(json, path, .loudness) else { return nil }
        let integrated = fields["integrated"].flatMap { double($0, path.key("integrated"), in: -70 ... -5) }
        let truePeak = fields["truePeak"].flatMap { double($0, path.key("truePeak"), in: -9...0) }
        let range = fields["range"].flatMap { double($0, path.key("range"), in: 1...50) }
        guard let integrated, let truePeak else { return nil }
        if fields["range"] != nil, range == nil { return nil }
        return LoudnessTarget(integrated: integrated, truePeak: truePeak, range: range)
    }

    /// Bits per second: a whole number, or a string like `"192k"` or `"5M"`.
    private func bitrate(_ json: JSON, _ path: JSONPath) -> Int? {
        let limits = 1000...2_000_000_000
        if case .string(let text) = json.value {
            let multipliers: [Character: Int] = ["k": 1000, "K": 1000, "m": 1_000_000, "M": 1_000_000]
            guard let last = text.last, let multiplier = multipliers[last],
                  let amount = try? TimeSyntax.parsePlainDecimal(String(text.dropLast()), subject: "bit rate"),
                  let scaled = try? amount.multiplied(by: Rational(Int64(multiplier))), scaled.timescale == 1,
                  let value = Int(exactly: scaled.value), limits.contains(value)
            else {
                error(path, "\"\(text)\" is not a bit rate", hint: "use bits per second, or a string like \"192k\" or \"5M\"")
                return nil
            }
            return value
        }
        return integer(json, path, in: limits, what: "a bit rate in bits per second")
    }
}
