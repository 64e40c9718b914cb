import ReelTime

extension DocumentDecoder {
    static let timelineKeys = ["clips", "audio", "ducking", "volume", "titles", "overlays"]
    static let clipKeys = ["asset", "in", "out", "duration", "speed", "volume", "muted", "fit", "pitch", "transition"]

    /// `timeline` (SPEC §3): the main storyline's clips and gaps. The other lists are checked to be
    /// arrays; entries in them are not supported yet.
    func readTimeline(_ json: JSON, _ path: JSONPath) -> Timeline {
        guard let fields = object(json, path, allowed: Self.timelineKeys) else { return Timeline(items: []) }
        var items: [TimelineItem] = []
        if let clipsJSON = fields["clips"], let clips = array(clipsJSON, path.key("clips")) {
            for (clipJSON, clipPath) in clips {
                if let item = readTimelineItem(clipJSON, clipPath) { items.append(item) }
            }
        }
        let laterLists: [(key: String, what: String)] = [
            ("audio", "timeline.audio (extra audio tracks)"), ("ducking", "timeline.ducking"),
            ("volume", "timeline.volume (volume automation)"), ("titles", "timeline.titles"),
            ("overlays", "timeline.overlays"),
        ]
        for list in laterLists {
            guard let listJSON = fields[list.key], let entries = array(listJSON, path.key(list.key)) else { continue }
            if !entries.isEmpty { unsupported(path.key(list.key), list.what) }
        }
        return Timeline(items: items)
    }

    private func readTimelineItem(_ json: JSON, _ path: JSONPath) -> TimelineItem? {
        if let members = json.value.objectValue, members["gap"] != nil, members["asset"] == nil {
            guard let fields = object(json, path, allowed: ["gap"]), let gapJSON = fields["gap"],
                  let duration = positiveDuration(gapJSON, path.key("gap"), what: "gap") else { return nil }
            return .gap(duration: duration, path: path)
        }
        guard let fields = object(json, path, allowed: Self.clipKeys, required: ["asset"],
                                  expected: "a clip object or {\"gap\": T}") else { return nil }
        var valid = true
        func take<T>(_ value: T?, present: Bool) -> T? {
            if present, value == nil { valid = false }
            return value
        }
        let asset = fields["asset"].flatMap { assetReference($0, path.key("asset")) }
        if asset == nil { valid = false }
        let inPoint = take(fields["in"].flatMap { instant($0, path.key("in")) }, present: fields.has("in"))
        let outPoint = take(fields["out"].flatMap { instant($0, path.key("out")) }, present: fields.has("out"))
        let duration = take(fields["duration"].flatMap { positiveDuration($0, path.key("duration")) }, present: fields.has("duration"))
        if fields.has("out"), fields.has("duration") {
            error(path.key("duration"), "\"out\" and \"duration\" are both given", hint: "keep one of them")
            valid = false
        }
        if let inPoint, let outPoint, inPoint >= outPoint {
            error(path.key("out"),
                  "out \(describeTime(outPoint, frameDuration: frameDuration)) is not after in \(describeTime(inPoint, frameDuration: frameDuration))",
                  hint: "a clip needs out > in; zero-length clips are not allowed", time: outPoint)
            valid = false
        }
        var speed = Rational(1)
        if let speedJSON = fields["speed"] {
            if let value = rational(speedJSON, path.key("speed"), expected: "a speed (a number or \"N/D\")") {
                if value < Rational(1, 100) || value > Rational(100) {
                    error(path.key("speed"), "speed \(value) is outside 0.01…100", hint: "use a speed from 0.01 to 100")
                    valid = false
                } else {
                    speed = value
                }
            } else {
                valid = false
            }
        }
        let volume = take(fields["volume"].flatMap { gain($0, path.key("volume")) }, present: fields.has("volume"))
        let muted = take(fields["muted"].flatMap { bool($0, path.key("muted")) }, present: fields.has("muted"))
        let fit: Fit? = take(fields["fit"].flatMap { enumeration($0, path.key("fit"), "fit") }, present: fields.has("fit"))
        let pitch: Pitch? = take(fields["pitch"].flatMap { enumeration($0, path.key("pitch"), "pitch") }, present: fields.has("pitch"))
        if fields.has("transition") {
            unsupported(path.key("transition"), "a transition")
            valid = false
        }
        guard valid, let asset else { return nil }
        return .clip(Clip(asset: asset, inPoint: inPoint, outPoint: outPoint, duration: duration, speed: speed,
                          volume: volume ?? 1, muted: muted ?? false, fit: fit ?? .contain, pitch: pitch ?? .keep,
                          path: path))
    }

    /// The frame duration for messages, when the frame rate is known.
    var frameDuration: Time? {
        guard let frameRate, let inverse = try? frameRate.inverse else { return nil }
        return Time(inverse)
    }
}
