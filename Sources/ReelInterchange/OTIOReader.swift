import ReelModel
import ReelTime

/// Reads an OpenTimelineIO JSON document (`.otio`) into an `ImportedEdit` (docs/interchange.md, "OpenTimelineIO").
///
/// Items are laid out as OTIO lays them out: a track's children end to end (transitions take no time), a
/// `source_range` on a track or stack trims its content, nested tracks are flattened into the track that holds
/// them, and so are nested stacks unless `keepStacks` (then a stack is one piece showing an
/// `ImportedComposition`), `LinearTimeWarp` scales the media consumed (record duration stays), `FreezeFrame` holds the
/// first frame. Every problem carries the JSON path of the object it concerns.
struct OTIOReader {
    let file: String
    var diagnostics: [Diagnostic] = []
    var markers: [String] = []
    /// The rate of the first time met in an item: the timeline's frame rate.
    var firstRate: Rational?
    /// Whether a nested stack becomes a composition piece instead of being flattened.
    let keepStacks: Bool
    /// Whether the top-level track being laid out is a video track (a stack in an audio track is kept as a
    /// composition of sound: its layers are audio tracks).
    var inVideoTrack = true

    init(file: String, keepStacks: Bool = false) {
        self.file = file
        self.keepStacks = keepStacks
    }

    static func read(_ bytes: [UInt8], file: String, keepStacks: Bool = false) -> ImportedEdit {
        var reader = OTIOReader(file: file, keepStacks: keepStacks)
        let root: JSON
        do {
            root = try OTIOJSON.parse(bytes)
        } catch {
            var diagnostic = Diagnostic(path: error.path, message: "JSON syntax error at line \(error.position.line), column \(error.position.column): \(error.message)")
            diagnostic.origin = DiagnosticOrigin(file: file, line: error.position.line, column: error.position.column)
            return ImportedEdit(name: "", frameRate: Rational(24), videoTracks: [], audioTracks: [], startTime: .zero,
                                diagnostics: [diagnostic], markers: [])
        }
        return reader.timeline(root, .root)
    }

    // MARK: Diagnostics

    mutating func report(_ severity: Severity, _ path: JSONPath, _ message: String, hint: String? = nil,
                         category: DiagnosticCategory = .invalid) {
        diagnostics.append(ImportOrigin(file: file, jsonPath: path).diagnostic(severity, message, hint: hint, category: category))
    }

    // MARK: Values

    func schema(_ object: JSONObject) -> (name: String, version: Int)? {
        guard let text = object["OTIO_SCHEMA"]?.value.stringValue else { return nil }
        let parts = text.split(separator: ".")
        guard parts.count == 2, let version = Int(parts[1]) else { return (text, 1) }
        return (String(parts[0]), version)
    }

    func isNull(_ json: JSON?) -> Bool {
        guard let json else { return true }
        return json.value == .null
    }

    /// A RationalTime object as exact seconds; nil (with a diagnostic when `required`) when absent or unusable.
    mutating func time(_ json: JSON?, _ path: JSONPath, zeroRate: Severity = .error) -> Time? {
        guard let json, let object = json.value.objectValue else {
            report(.error, path, "expected a RationalTime object")
            return nil
        }
        guard let rateValue = object["rate"].flatMap({ OTIOJSON.number($0.value) }),
              let value = object["value"].flatMap({ OTIOJSON.number($0.value) })
        else {
            report(.error, path, "a RationalTime needs numeric \"value\" and \"rate\"")
            return nil
        }
        guard let rate = ExactTime.rate(rateValue) else {
            if zeroRate == .error || !(rateValue == 0) {
                report(zeroRate, path.key("rate"), "rate \(ExactTime.decimalText(rateValue)) is not a positive frame rate")
            }
            return nil
        }
        switch ExactTime.time(value: value, rate: rate) {
        case .exact(let time, let snapped):
            if snapped {
                report(.warning, path.key("value"), "value \(value) snapped to the frame grid (\(time.value)/\(time.timescale) s at \(rate.doubleRateText) fps)")
            }
            return time
        case .invalid(let message):
            report(.error, path, message)
            return nil
        }
    }

    /// A TimeRange object as (start, duration) in seconds.
    mutating func range(_ json: JSON?, _ path: JSONPath, zeroRate: Severity = .error) -> (start: Time, duration: Time)? {
        guard let json, let object = json.value.objectValue else {
            report(.error, path, "expected a TimeRange object")
            return nil
        }
        guard let start = time(object["start_time"], path.key("start_time"), zeroRate: zeroRate),
              let duration = time(object["duration"], path.key("duration"), zeroRate: zeroRate)
        else { return nil }
        guard !duration.isNegative else {
            report(.error, path.key("duration"), "negative duration")
            return nil
        }
        return (start, duration)
    }

    // MARK: Timeline

    mutating func timeline(_ root: JSON, _ path: JSONPath) -> ImportedEdit {
        guard let object = root.value.objectValue, let (name, _) = schema(object), name == "Timeline" else {
            report(.error, path, "not an OpenTimelineIO timeline: the top-level object's OTIO_SCHEMA is not Timeline")
            return ImportedEdit(name: "", frameRate: Rational(24), videoTracks: [], audioTracks: [], startTime: .zero,
                                diagnostics: diagnostics, markers: [])
        }
        let title = object["name"]?.value.stringValue ?? ""
        var startTime = Time.zero
        if let start = object["global_start_time"], !isNull(start) {
            startTime = time(start, path.key("global_start_time")) ?? .zero
        }
        var video: [ImportedTrack] = []
        var audio: [ImportedTrack] = []
        let stackPath = path.key("tracks")
        var timed: [ImportedMarker] = []
        if let stack = object["tracks"]?.value.objectValue {
            markersOf(stack, stackPath)
            timed += timedMarkers(of: stack)
            for (offset, child) in (stack["children"]?.value.arrayValue ?? []).enumerated() {
                let childPath = stackPath.key("children").index(offset)
                guard let track = child.value.objectValue, let (kindName, _) = schema(track),
                      kindName == "Track" || kindName == "Sequence"
                else {
                    report(.warning, childPath, "a top-level stack child that is not a track is ignored")
                    continue
                }
                let kindText = track["kind"]?.value.stringValue ?? "Video"
                timed += timedMarkers(of: track)
                inVideoTrack = kindText != "Audio"
                guard let laid = layoutTrack(track, childPath) else { continue }
                let imported = ImportedTrack(kind: kindText == "Audio" ? .audio : .video,
                                             name: track["name"]?.value.stringValue ?? "", pieces: laid.pieces,
                                             duration: laid.duration)
                switch kindText {
                case "Video": video.append(imported)
                case "Audio": audio.append(imported)
                default: report(.warning, childPath.key("kind"), "track kind \"\(kindText)\" is neither Video nor Audio; ignored")
                }
            }
            if let stackRange = stack["source_range"], !isNull(stackRange) {
                if let trim = range(stackRange, stackPath.key("source_range")) {
                    let end = (try? trim.start + trim.duration) ?? trim.start
                    timed = timed.compactMap { marker in
                        guard marker.at >= trim.start, marker.at < end, let moved = try? marker.at - trim.start else { return nil }
                        return ImportedMarker(at: moved, name: marker.name)
                    }
                    video = video.map { track in var t = track; t.pieces = track.pieces(in: trim.start, end, movedTo: .zero); t.duration = trim.duration; return t }
                    audio = audio.map { track in var t = track; t.pieces = track.pieces(in: trim.start, end, movedTo: .zero); t.duration = trim.duration; return t }
                }
            }
        } else {
            report(.error, stackPath, "the timeline has no tracks stack")
        }
        var edit = ImportedEdit(name: title, frameRate: firstRate ?? Rational(24), videoTracks: video, audioTracks: audio,
                                startTime: startTime, diagnostics: diagnostics, markers: markers)
        edit.timedMarkers = timed
        // Rates above 240 are timescales (rate 24000 counts 1/24000 s), not frame rates.
        edit.frameRateIsStated = firstRate != nil
        return edit
    }

    /// The markers of the top-level stack or one of its tracks with their start times (timeline time), leaving out
    /// the caption cues `export-otio` writes as markers; a marker without a usable time is left out.
    func timedMarkers(of object: JSONObject) -> [ImportedMarker] {
        (object["markers"]?.value.arrayValue ?? []).compactMap { marker in
            // Read quietly: a marker's time only matters with --markers-as-chapters, and an odd one is left out.
            guard let markerObject = marker.value.objectValue,
                  markerObject["metadata"]?.value.objectValue?["reel"]?.value.objectValue?["captions"] == nil,
                  let start = markerObject["marked_range"]?.value.objectValue?["start_time"]?.value.objectValue,
                  let rateValue = start["rate"].flatMap({ OTIOJSON.number($0.value) }),
                  let value = start["value"].flatMap({ OTIOJSON.number($0.value) }),
                  let rate = ExactTime.rate(rateValue), case .exact(let at, _) = ExactTime.time(value: value, rate: rate)
            else { return nil }
            return ImportedMarker(at: at, name: markerObject["name"]?.value.stringValue ?? "")
        }
    }

    mutating func markersOf(_ object: JSONObject, _ path: JSONPath) {
        for (offset, marker) in (object["markers"]?.value.arrayValue ?? []).enumerated() {
            guard let markerObject = marker.value.objectValue else { continue }
            let name = markerObject["name"]?.value.stringValue ?? ""
            let color = markerObject["color"]?.value.stringValue
                ?? markerObject["color"]?.value.objectValue?["name"]?.value.stringValue ?? ""
            markers.append("\(name.isEmpty ? "(unnamed)" : name)\(color.isEmpty ? "" : " [\(color)]") at \(path.key("markers").index(offset))")
        }
    }

    // MARK: Layout

    /// A laid-out composition: pieces relative to its own start, and its duration.
    struct Laid {
        var pieces: [ImportedPiece]
        var duration: Time
    }

    /// A track's children end to end; transitions attach to the piece after them.
    mutating func layoutTrack(_ track: JSONObject, _ path: JSONPath) -> Laid? {
        markersOf(track, path)
        let children = track["children"]?.value.arrayValue ?? []
        var pieces: [ImportedPiece] = []
        var position = Time.zero
        var pendingTransition: (ImportedTransition, JSONPath)?
        // Gaps next to transitions become black pieces, so that the transition fades through black.
        var lastGap: (start: Time, duration: Time, path: JSONPath)?
        for (offset, child) in children.enumerated() {
            let childPath = path.key("children").index(offset)
            guard let object = child.value.objectValue, let (name, version) = schema(object) else {
                report(.error, childPath, "a track child without OTIO_SCHEMA")
                continue
            }
            if name == "Transition" {
                guard let transition = transition(object, childPath) else { continue }
                if let gap = lastGap, (try? gap.start + gap.duration) == position {
                    pieces.append(blackPiece(gap.start, gap.duration, gap.path))
                    lastGap = nil
                } else if pieces.last?.recordEnd != position {
                    var clamped = transition
                    if transition.inOffset > .zero {
                        report(.warning, childPath, "transition at the start of the track: it fades in from black over its out_offset; its in_offset (\(transition.inOffset) s) is dropped")
                        clamped.inOffset = .zero
                    }
                    pieces.append(blackPiece(position, .zero, childPath))
                    pendingTransition = (clamped, childPath)
                    continue
                }
                pendingTransition = (transition, childPath)
                continue
            }
            if object["enabled"]?.value.boolValue == false {
                report(.warning, childPath, "disabled item shown as a gap, as OpenTimelineIO plays it")
            }
            let duration: Time
            switch name {
            case "Gap":
                guard let gapDuration = gapDuration(object, childPath) else { continue }
                duration = gapDuration
                markersOf(object, childPath)
                if let (transition, _) = pendingTransition {
                    var black = blackPiece(position, duration, childPath)
                    black.transitionIn = transition
                    pieces.append(black)
                    pendingTransition = nil
                } else {
                    lastGap = (position, duration, childPath)
                }
            case "Clip", "Stack", "Track", "Sequence":
                let nextIsTransition = children.indices.contains(offset + 1)
                    && children[offset + 1].value.objectValue.flatMap { schema($0) }?.name == "Transition"
                let laidOut: Laid?
                if name == "Clip" {
                    laidOut = clip(object, childPath, version: version)
                } else if name == "Stack", keepStacks {
                    // The handles the transitions beside it take: before it as the incoming side, after it as the
                    // outgoing one (a transition ending the track fades out over its in_offset only).
                    var after = Time.zero
                    if nextIsTransition, offset + 2 < children.count, let next = children[offset + 1].value.objectValue {
                        let saved = self
                        after = transition(next, childPath)?.outOffset ?? .zero
                        self = saved
                    }
                    laidOut = keptWithHandles(object, childPath, before: pendingTransition?.0.inOffset ?? .zero, after: after)
                } else {
                    laidOut = nested(object, name, childPath)
                }
                guard var laid = laidOut else { continue }
                duration = laid.duration
                if object["enabled"]?.value.boolValue == false {
                    laid.pieces = []
                }
                var moved = laid.pieces.map { piece in
                    var piece = piece
                    piece.recordStart = (try? piece.recordStart + position) ?? piece.recordStart
                    return piece
                }
                if let (transition, _) = pendingTransition {
                    if let first = moved.indices.first, moved[first].recordStart == position {
                        moved[first].transitionIn = transition
                    }
                    pendingTransition = nil
                }
                pieces += moved
                lastGap = nil
            default:
                report(.error, childPath, "unknown track item schema \(name).\(version)", hint: "reel reads Clip, Gap, Transition, Stack and Track items")
                continue
            }
            position = (try? position + duration) ?? position
        }
        if let (transition, transitionPath) = pendingTransition {
            var clamped = transition
            if transition.outOffset > .zero {
                report(.warning, transitionPath, "transition at the end of the track: it fades out to black over its in_offset; its out_offset (\(transition.outOffset) s) is dropped")
                clamped.outOffset = .zero
            }
            var black = blackPiece(position, .zero, transitionPath)
            black.transitionIn = clamped
            pieces.append(black)
        }
        var laid = Laid(pieces: pieces, duration: position)
        if let trackRange = track["source_range"], !isNull(trackRange), let trim = range(trackRange, path.key("source_range")),
           usableTrim(trim, content: position, path.key("source_range")) {
            let end = (try? trim.start + trim.duration) ?? trim.start
            laid = Laid(pieces: ImportedTrack(kind: .video, name: "", pieces: pieces).pieces(in: trim.start, end, movedTo: .zero),
                        duration: trim.duration)
        }
        return laid
    }

    /// Whether a track's source_range selects part of its content. OTIO's CMX adapter writes minus the record
    /// start timecode there (a range before the content's start, which would hide every clip): ignored, with a warning.
    mutating func usableTrim(_ trim: (start: Time, duration: Time), content: Time, _ path: JSONPath) -> Bool {
        guard trim.start.isNegative else { return true }
        report(.warning, path, "source_range starts before the track's content (at \(trim.start) s); ignored, the track is read from its start")
        return false
    }

    /// Records the timeline's frame rate from the first clip or gap duration (`json` is a TimeRange).
    mutating func noteRate(_ json: JSON?) {
        guard firstRate == nil, let object = json?.value.objectValue?["duration"]?.value.objectValue,
              let rate = object["rate"].flatMap({ OTIOJSON.number($0.value) }).flatMap(ExactTime.rate),
              rate <= Rational(240)
        else { return }
        firstRate = rate
    }

    func blackPiece(_ start: Time, _ duration: Time, _ path: JSONPath) -> ImportedPiece {
        ImportedPiece(name: "black", origin: ImportOrigin(file: file, jsonPath: path), recordStart: start,
                      recordDuration: duration, content: .black, sourceStart: .zero)
    }

    mutating func gapDuration(_ object: JSONObject, _ path: JSONPath) -> Time? {
        if let sourceRange = object["source_range"], !isNull(sourceRange) {
            noteRate(sourceRange)
            return range(sourceRange, path.key("source_range"))?.duration
        }
        if let duration = object["duration"], !isNull(duration) {
            return time(duration, path.key("duration"))
        }
        report(.error, path, "a gap needs a source_range")
        return nil
    }

    mutating func transition(_ object: JSONObject, _ path: JSONPath) -> ImportedTransition? {
        let type = object["transition_type"]?.value.stringValue ?? ""
        let kind: ImportedTransitionKind
        switch type {
        case "SMPTE_Dissolve": kind = .dissolve
        case "SMPTE_Wipe", "toucan:HorizontalWipe": kind = .wipe(.right)
        case "toucan:VerticalWipe": kind = .wipe(.down)
        default:
            kind = .dissolve
            report(.warning, path.key("transition_type"), "transition type \"\(type)\" is unknown; rendered as a dissolve")
        }
        if type == "toucan:HorizontalWipe" || type == "toucan:VerticalWipe" || type == "SMPTE_Wipe" {
            report(.warning, path.key("transition_type"), "\(type) is rendered as reel's wipe \(type.contains("Vertical") ? "down (top to bottom)" : "right (left to right)"); the file does not say the edge's direction")
        }
        guard let inOffset = time(object["in_offset"], path.key("in_offset")),
              let outOffset = time(object["out_offset"], path.key("out_offset"))
        else { return nil }
        guard !inOffset.isNegative, !outOffset.isNegative else {
            report(.error, path, "negative transition offset")
            return nil
        }
        if inOffset.isZero && outOffset.isZero {
            report(.warning, path, "transition of zero length ignored")
            return nil
        }
        return ImportedTransition(kind: kind, inOffset: inOffset, outOffset: outOffset,
                                  origin: ImportOrigin(file: file, jsonPath: path))
    }

    /// A nested Stack or Track: laid out, trimmed by its source_range, its time effects applied.
    mutating func nested(_ object: JSONObject, _ name: String, _ path: JSONPath) -> Laid? {
        var laid: Laid
        if name == "Stack" {
            let (tracks, duration) = layers(object, path)
            var ignored: [Diagnostic] = []
            laid = Laid(pieces: flattened(tracks, frameDuration: Time(seconds: 1), diagnostics: &ignored).pieces, duration: duration)
            if tracks.count > 1 {
                report(.warning, path, "nested stack of \(tracks.count) layers flattened: the topmost item shows at each instant")
            }
            if let stackRange = object["source_range"], !isNull(stackRange), let trim = range(stackRange, path.key("source_range")) {
                let end = (try? trim.start + trim.duration) ?? trim.start
                laid = Laid(pieces: ImportedTrack(kind: .video, name: "", pieces: laid.pieces).pieces(in: trim.start, end, movedTo: .zero),
                            duration: trim.duration)
            }
        } else {
            guard let inner = layoutTrack(object, path) else { return nil }
            laid = inner
        }
        return applyEffects(object, path, to: laid)
    }

    /// A nested stack's children as layers, bottom first, each laid out from 0, and the longest one's length.
    mutating func layers(_ object: JSONObject, _ path: JSONPath) -> (tracks: [ImportedTrack], duration: Time) {
        markersOf(object, path)
        var tracks: [ImportedTrack] = []
        var duration = Time.zero
        for (offset, child) in (object["children"]?.value.arrayValue ?? []).enumerated() {
            let childPath = path.key("children").index(offset)
            guard let childObject = child.value.objectValue, let (childName, version) = schema(childObject) else { continue }
            let inner: Laid?
            switch childName {
            case "Track", "Sequence": inner = layoutTrack(childObject, childPath)
            case "Clip": inner = clip(childObject, childPath, version: version)
            case "Stack": inner = keepStacks ? kept(childObject, childPath) : nested(childObject, childName, childPath)
            case "Gap": inner = gapDuration(childObject, childPath).map { Laid(pieces: [], duration: $0) }
            default:
                report(.error, childPath, "unknown stack item schema \(childName)")
                inner = nil
            }
            guard let inner else { continue }
            tracks.append(ImportedTrack(kind: inVideoTrack ? .video : .audio, name: "", pieces: inner.pieces, duration: inner.duration))
            duration = max(duration, inner.duration)
        }
        return (tracks, duration)
    }

    /// A nested stack kept whole: one piece showing it as a composition, its `source_range` as the piece's source
    /// start and length, its time effects applied to that piece as the flattened path applies them to the pieces
    /// inside (so both show the same pictures). The piece carries the markers of the clips inside, in the stack's
    /// time.
    mutating func kept(_ object: JSONObject, _ path: JSONPath) -> Laid? {
        let (tracks, duration) = layers(object, path)
        var start = Time.zero
        var shown = duration
        if let stackRange = object["source_range"], !isNull(stackRange), let trim = range(stackRange, path.key("source_range")) {
            start = trim.start
            shown = trim.duration
        }
        let composition = ImportedComposition(name: object["name"]?.value.stringValue ?? "", layers: tracks,
                                              duration: duration, origin: ImportOrigin(file: file, jsonPath: path))
        var piece = ImportedPiece(name: composition.name, origin: composition.origin, recordStart: .zero,
                                  recordDuration: shown, content: .composition(composition), sourceStart: start)
        // The markers the flattened stack would show: those of the clips not covered by a layer above.
        var ignored: [Diagnostic] = []
        piece.markers = flattened(tracks, frameDuration: Time(seconds: 1), diagnostics: &ignored).pieces
            .flatMap(\.markersInTimelineTime)
        var laid = applyEffects(object, path, to: Laid(pieces: shown > .zero ? [piece] : [], duration: shown))
        // A range (or a slowed range) reaching past the content shows what there is, then nothing, as the flattened
        // stack does: the clip ends where the composition does.
        laid.pieces = laid.pieces.compactMap { piece in
            var piece = piece
            guard !piece.freeze, let used = try? piece.recordDuration.multiplied(by: piece.speed),
                  let end = try? piece.sourceStart + used, end > duration else { return piece }
            guard let left = try? duration - piece.sourceStart, left > .zero,
                  let record = try? left.divided(by: piece.speed) else { return nil }
            piece.recordDuration = record
            return piece
        }
        return laid
    }

    /// A nested stack beside transitions: kept when its own content holds the handles they take (`before` its
    /// shown range as the incoming side, `after` it as the outgoing one, in record time), and holds them as the
    /// flattened stack would: the item showing at each end of the range runs on through the handle, so the
    /// composition's frames there are the frames the flattened item's media handles show. Otherwise flattened in
    /// place, with a warning.
    mutating func keptWithHandles(_ object: JSONObject, _ path: JSONPath, before: Time, after: Time) -> Laid? {
        guard before > .zero || after > .zero else { return kept(object, path) }
        let saved = self
        if let laid = kept(object, path), laid.pieces.count == 1, let piece = laid.pieces.first,
           case .composition(let composition) = piece.content,
           composition.holdsHandles(of: piece, before: before, after: after) {
            return laid
        }
        self = saved
        report(.warning, path, "nested stack next to a transition flattened in place: the transition uses handles beyond the stack's source_range, and the stack's own content does not continue the item at its edge there")
        return nested(object, "Stack", path)
    }

    /// Time effects on a nested composition: a LinearTimeWarp scales every inner piece; a FreezeFrame holds
    /// the frame at the start.
    mutating func applyEffects(_ object: JSONObject, _ path: JSONPath, to laid: Laid) -> Laid {
        var laid = laid
        for (offset, effect) in (object["effects"]?.value.arrayValue ?? []).enumerated() {
            let effectPath = path.key("effects").index(offset)
            guard let effectObject = effect.value.objectValue, let (name, _) = schema(effectObject) else { continue }
            switch name {
            case "LinearTimeWarp":
                guard let scalar = timeScalar(effectObject, effectPath) else { continue }
                if scalar.isZero {
                    laid.pieces = freezeFirst(laid)
                    continue
                }
                // Inner time t maps to outer t / scalar.
                laid.pieces = laid.pieces.compactMap { piece in
                    var piece = piece
                    guard let start = try? piece.recordStart.divided(by: scalar),
                          let duration = try? piece.recordDuration.divided(by: scalar),
                          let speed = try? piece.speed.multiplied(by: scalar)
                    else { return nil }
                    piece.recordStart = start
                    piece.recordDuration = duration
                    piece.speed = speed
                    return piece
                }
                laid.pieces = laid.pieces.filter { $0.recordStart < laid.duration }.map {
                    $0.recordEnd > laid.duration ? $0.trimmed(from: $0.recordStart, to: laid.duration) : $0
                }
                report(.warning, effectPath, "LinearTimeWarp on a nested composition: every clip inside is sped up by \(ExactTime.decimalText(scalar.doubleValue)) and re-timed")
            case "FreezeFrame":
                laid.pieces = freezeFirst(laid)
            default:
                report(.warning, effectPath, "effect \(name) is not supported and is ignored")
            }
        }
        return laid
    }

    func freezeFirst(_ laid: Laid) -> [ImportedPiece] {
        guard var first = laid.pieces.first(where: { $0.recordStart.isZero }) else { return [] }
        first.recordDuration = laid.duration
        first.freeze = true
        first.transitionIn = nil
        return [first]
    }

    mutating func timeScalar(_ effect: JSONObject, _ path: JSONPath) -> Rational? {
        guard let value = effect["time_scalar"].flatMap({ OTIOJSON.number($0.value) }), value.isFinite,
              let scalar = ExactTime.decimal(value) ?? ExactTime.approximation(value)
        else {
            report(.error, path.key("time_scalar"), "LinearTimeWarp needs a finite time_scalar")
            return nil
        }
        if ExactTime.decimal(value) == nil {
            report(.warning, path.key("time_scalar"), "time_scalar \(ExactTime.decimalText(value)) has no exact form with a denominator up to 2^31; read as \(scalar)")
        }
        if scalar.isNegative {
            report(.error, path.key("time_scalar"), "reverse playback (time_scalar \(ExactTime.decimalText(value))) is not supported: a composition plays its sources forwards only",
                   category: .unsupported)
            return nil
        }
        return scalar
    }

    // MARK: Clips

    mutating func clip(_ object: JSONObject, _ path: JSONPath, version: Int) -> Laid? {
        markersOf(object, path)
        let name = object["name"]?.value.stringValue ?? ""
        // Clip.2 holds several references and names the active one; Clip.1 holds one.
        var referenceJSON = object["media_reference"]
        var referencePath = path.key("media_reference")
        if let references = object["media_references"]?.value.objectValue {
            let key = object["active_media_reference_key"]?.value.stringValue ?? "DEFAULT_MEDIA"
            referenceJSON = references[key]
            referencePath = path.key("media_references").key(key)
            if referenceJSON == nil {
                report(.error, path.key("active_media_reference_key"), "no media reference named \"\(key)\"")
                return nil
            }
        }
        let reference = referenceJSON?.value.objectValue
        var available: (start: Time, duration: Time)?
        if let reference, let availableJSON = reference["available_range"], !isNull(availableJSON) {
            available = range(availableJSON, referencePath.key("available_range"), zeroRate: .warning)
        }
        var sourceRange: (start: Time, duration: Time)
        if let sourceJSON = object["source_range"], !isNull(sourceJSON) {
            noteRate(sourceJSON)
            guard let parsed = range(sourceJSON, path.key("source_range")) else { return nil }
            sourceRange = parsed
        } else if let available {
            noteRate(referenceJSON?.value.objectValue?["available_range"])
            sourceRange = available
        } else {
            report(.error, path, "clip \"\(name)\" has neither a source_range nor a media available_range: its length is unknown")
            return nil
        }
        let content = mediaContent(reference, referencePath, clipName: name)
        var piece = ImportedPiece(name: name, origin: ImportOrigin(file: file, jsonPath: path), recordStart: .zero,
                                  recordDuration: sourceRange.duration, content: content, sourceStart: sourceRange.start)
        piece.markers = timedMarkers(of: object)
        if case .media(let link) = content, let locator = link.locator {
            let lower = locator.lowercased()
            piece.isStill = [".jpg", ".jpeg", ".png", ".tif", ".tiff", ".bmp"].contains { lower.hasSuffix($0) }
        }
        for (offset, effect) in (object["effects"]?.value.arrayValue ?? []).enumerated() {
            let effectPath = path.key("effects").index(offset)
            guard let effectObject = effect.value.objectValue, let (effectName, _) = schema(effectObject) else { continue }
            switch effectName {
            case "LinearTimeWarp":
                guard let scalar = timeScalar(effectObject, effectPath) else { return nil }
                if scalar.isZero { piece.freeze = true } else { piece.speed = (try? piece.speed.multiplied(by: scalar)) ?? scalar }
            case "FreezeFrame":
                piece.freeze = true
            default:
                report(.warning, effectPath, "effect \(effectName) is not supported and is ignored")
            }
        }
        guard sourceRange.duration > .zero else {
            report(.warning, path, "clip \"\(name)\" has zero length; skipped")
            return Laid(pieces: [], duration: .zero)
        }
        return Laid(pieces: [piece], duration: sourceRange.duration)
    }

    mutating func mediaContent(_ reference: JSONObject?, _ path: JSONPath, clipName: String) -> PieceContent {
        guard let reference, let (name, _) = schema(reference) else { return .missing }
        switch name {
        case "ExternalReference":
            let url = reference["target_url"]?.value.stringValue ?? ""
            if url.isEmpty { return .missing }
            let referenceName = reference["name"]?.value.stringValue
            return .media(MediaLink(locator: url, names: [clipName, referenceName].compactMap { $0 }.filter { !$0.isEmpty }))
        case "MissingReference":
            return .missing
        case "GeneratorReference":
            let kind = reference["generator_kind"]?.value.stringValue ?? ""
            let parameters = reference["parameters"]?.value.objectValue
            if kind.lowercased().hasSuffix("solidcolor") || kind.lowercased() == "color" {
                let colorText = parameters?["kdenlive"]?.value.objectValue?["color"]?.value.stringValue
                    ?? parameters?["color"]?.value.stringValue
                if let colorText, let hex = Self.hexColor(colorText) { return .color(hex) }
                report(.warning, path.key("parameters"), "solid colour generator without a readable colour; rendered black")
                return .black
            }
            if kind == "SMPTEBars" || kind.lowercased().contains("bars") {
                report(.warning, path.key("generator_kind"), "generator \(kind) has no reel equivalent yet; rendered as a mid-grey colour clip", category: .unsupported)
                return .color("#808080")
            }
            report(.error, path.key("generator_kind"), "generator \"\(kind)\" is not supported", category: .unsupported)
            return .missing
        case "ImageSequenceReference":
            report(.error, path, "image sequences are not supported: reel reads movie files and single images",
                   hint: "convert the sequence to a movie (ffmpeg -i name.%04d.exr …) and point the clip at it",
                   category: .unsupported)
            return .missing
        default:
            report(.error, path, "unknown media reference schema \(name)", category: .unsupported)
            return .missing
        }
    }

    /// `0xff0000ff` (Kdenlive's RGBA hex) or `#ff0000` as `#RRGGBB`.
    static func hexColor(_ text: String) -> String? {
        var digits = text.lowercased()
        if digits.hasPrefix("0x") { digits.removeFirst(2) } else if digits.hasPrefix("#") { digits.removeFirst() }
        guard digits.count == 6 || digits.count == 8, digits.allSatisfy(\.isHexDigit) else { return nil }
        return "#" + digits.prefix(6)
    }
}
