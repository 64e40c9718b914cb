import ReelCodecs
import ReelTime

/// Pixel formats an output may request.
let knownPixelFormats = ["yuv420p", "yuv420p10le", "yuv422p", "yuv422p10le", "yuv444p", "yuv444p10le"]

extension DocumentDecoder {
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
                frameRate = readFrameRate(rateJSON, path.key("frameRate"))
                frameRateIsBroken = frameRate == nil
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
        output.frameRate = further ? ownRate : frameRate

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
        if further || !outputPathOverridden, fields["format"] == nil || output.format != nil {
            diagnostics += output.containerDiagnostics(at: path.key("path"), base: path, allowsPoster: further,
                                                       capabilities: capabilities)
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

    /// `output.frameRate`: a JSON number (JSON's grammar, taken exactly) or an `"N/D"` string (SPEC §2.1); a
    /// decimal inside a string (`"29.97"`, `"1e2"`) is refused, as the format names no such form.
    func readFrameRate(_ json: JSON, _ path: JSONPath) -> Rational? {
        do {
            switch json.value {
            case .number(let literal):
                return try TimeSyntax.parseFrameRate(jsonNumber: literal)
            case .string(let literal) where literal.contains("/"):
                return try TimeSyntax.parseFrameRate(literal)
            case .string(let literal):
                error(path, "frame rate \(JSONWriter.quoted(literal)) is a string, which must be \"N/D\"",
                      hint: "write the rate as a JSON number (29.97) or as \"N/D\" (\"30000/1001\")")
                return nil
            default:
                typeError(json, path, expected: "a frame rate (a number or \"N/D\")")
                return nil
            }
        } catch {
            self.error(path, error.message, hint: "use 1 to 240 frames per second, as a number or \"N/D\"")
            return nil
        }
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
            if knownPixelFormats.contains(name) {
                output.video.pixelFormat = name
            } else {
                let hint = suggestion(for: name, among: knownPixelFormats).map { "did you mean \"\($0)\"?" }
                    ?? "use one of " + knownPixelFormats.joined(separator: ", ")
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
        let opusRates = [8000, 12000, 16000, 24000, 48000]
        if audio.codec == .opus, !opusRates.contains(audio.sampleRate) {
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

    // MARK: Assets

    /// `assets` (SPEC §2.2), in document order.
    func readAssets(_ json: JSON?, _ path: JSONPath) -> [Asset] {
        guard let json else { return [] }
        guard case .object(let map) = json.value else {
            typeError(json, path, expected: "an object mapping ids to assets")
            return []
        }
        assetIDs = map.keys
        var assets: [Asset] = []
        for member in map.members {
            let assetPath = path.key(member.key)
            guard identifier(member.key, assetPath, what: "asset id") else { continue }
            if member.value.value == .null {
                error(assetPath, "null is not allowed here", hint: "omit an optional key instead")
                continue
            }
            if let asset = readAsset(id: member.key, member.value, assetPath) { assets.append(asset) }
        }
        return assets
    }

    /// `{"sequence": "frames/img_%04d.png", "frameRate": 24, "start": 1}`: numbered images played as a video.
    private func readSequence(id: String, _ json: JSON, _ fields: Fields, _ path: JSONPath) -> Asset? {
        guard let pattern = filePath(json, path.key("sequence")) else { return nil }
        let conversions = pattern.matches(of: /%0?[0-9]*d/).count
        guard conversions == 1, pattern.filter({ $0 == "%" }).count == 1 else {
            error(path.key("sequence"), "an image sequence pattern has exactly one frame number, %d or %0Nd (like img_%04d.png)",
                  hint: "write the numbered part of the file names as %04d for 4 digits with leading zeros")
            return nil
        }
        guard let rateJSON = fields["frameRate"] else {
            error(path, "missing \"frameRate\"", hint: "say how many images a second the sequence plays, e.g. \"frameRate\": 24")
            return nil
        }
        guard let rate = readFrameRate(rateJSON, path.key("frameRate")) else { return nil }
        var start: Int?
        if let startJSON = fields["start"] {
            guard let number = integer(startJSON, path.key("start"), in: 0...999_999_999, what: "a frame number") else { return nil }
            start = number
        }
        return Asset(id: id, source: .file(path: ImageSequencePath.encode(pattern: pattern, frameRate: rate, start: start),
                                           videoTrack: nil, audioTrack: nil, language: nil, rotation: .auto), path: path)
    }

    private func readAsset(id: String, _ json: JSON, _ path: JSONPath) -> Asset? {
        // A file asset, or one without a kind key, is checked against every asset key, so that a misspelt
        // "image" or "color" still gets its "did you mean".
        let kinds: [(key: String, shape: ObjectShape)] = [("path", .asset), ("image", .imageAsset), ("color", .colorAsset),
                                                          ("sequence", .sequenceAsset)]
        let present = json.value.objectValue.map { object in kinds.filter { object[$0.key] != nil } } ?? []
        if present.count > 1 {
            error(path, "an asset is one of path, image or color, found \(present.map(\.key).joined(separator: " and "))",
                  hint: "keep one of them")
            return nil
        }
        guard let fields = object(json, path, present.first?.shape ?? .asset, expected: "an asset object") else { return nil }
        if let imageJSON = fields["image"] {
            guard let file = filePath(imageJSON, path.key("image")) else { return nil }
            return Asset(id: id, source: .image(path: file), path: path)
        }
        if let sequenceJSON = fields["sequence"] {
            return readSequence(id: id, sequenceJSON, fields, path)
        }
        if let colorJSON = fields["color"] {
            guard let color = color(colorJSON, path.key("color")) else { return nil }
            // A colour clip covers the whole canvas; see-through colours would need a layer opacity instead.
            guard color.alpha == 255 else {
                error(path.key("color"), "a color asset is opaque, but \"\(color)\" has alpha \(color.alpha)",
                      hint: "write an opaque colour \"#RRGGBB\"")
                return nil
            }
            return Asset(id: id, source: .color(color), path: path)
        }
        guard let pathJSON = fields["path"] else {
            error(path, "missing \"path\"", hint: "give the asset a \"path\" (or \"image\" or \"color\")")
            return nil
        }
        guard let file = filePath(pathJSON, path.key("path")) else { return nil }
        let videoTrack = fields["videoTrack"].flatMap { integer($0, path.key("videoTrack"), in: 0...1023, what: "a stream index") }
        let audioTrack = fields["audioTrack"].flatMap { integer($0, path.key("audioTrack"), in: 0...1023, what: "a stream index") }
        let language = fields["language"].flatMap { string($0, path.key("language")) }
        var rotation = AssetRotation.auto
        if let json = fields["rotation"] {
            switch json.value {
            case .string("auto"):
                break
            case .number:
                if let degrees = integer(json, path.key("rotation"), in: 0...270, what: "a rotation") {
                    if degrees % 90 == 0 {
                        rotation = .degrees(degrees)
                    } else {
                        error(path.key("rotation"), "rotation \(degrees) is not a quarter turn", hint: "use \"auto\", 0, 90, 180 or 270")
                    }
                }
            default:
                error(path.key("rotation"), "expected \"auto\", 0, 90, 180 or 270, found \(json.value.stringValue.map { "\"\($0)\"" } ?? article(json.value.typeName))",
                      hint: "use \"auto\", 0, 90, 180 or 270")
            }
        }
        return Asset(id: id, source: .file(path: file, videoTrack: videoTrack, audioTrack: audioTrack,
                                           language: language, rotation: rotation), path: path)
    }
}
