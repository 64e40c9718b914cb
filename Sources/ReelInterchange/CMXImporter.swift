import ReelModel
import ReelTime

/// Turns a CMX 3600 list into an `ImportedEdit` (docs/interchange.md, "CMX 3600").
///
/// Timecodes are read at the list's rate: `--frame-rate` when given, else 30000/1001 when the list says
/// `FCM: DROP FRAME`, else 24 (with a warning: nothing in a non-drop list states its rate). Each timecode is
/// drop-frame when `FCM: DROP FRAME` was in force on its line or it is written with `;`. Timeline time 0 is the
/// earliest record in. Events are applied in list order, as a record machine would: a later event overwrites
/// the record range of an earlier one on the same channel (with a warning).
enum CMXImporter {
    static func importList(_ bytes: [UInt8], file: String, frameRate requestedRate: Rational?) -> ImportedEdit {
        let list = CMXParser.parse(bytes, file: file)
        var diagnostics = list.diagnostics
        let fileOrigin = ImportOrigin(file: file)
        let saysDropFrame = list.frameCodeModes.contains { $0.dropFrame } || list.edits.contains {
            $0.sourceIn.dropFrame || $0.recordIn.dropFrame
        }
        let rate: Rational
        if let requestedRate {
            rate = requestedRate
        } else if saysDropFrame {
            rate = Rational(30000, 1001)
        } else {
            rate = Rational(24)
            if !list.edits.isEmpty {
                diagnostics.append(fileOrigin.diagnostic(
                    .warning, "the list does not state its frame rate; read at 24 fps",
                    hint: "pass --frame-rate (25, 29.97, 30, …) if the list was cut at another rate"))
            }
        }
        var builder = Builder(file: file, rate: rate, diagnostics: diagnostics)
        builder.build(list.edits)
        diagnostics = builder.diagnostics

        let start = builder.earliestRecord ?? .zero
        func shifted(_ track: ImportedTrack) -> ImportedTrack {
            var track = track
            track.pieces = track.pieces.map { piece in
                var piece = piece
                piece.recordStart = (try? piece.recordStart - start) ?? piece.recordStart
                return piece
            }
            return track
        }
        let video = builder.tracks["V"].map { [shifted($0)] } ?? []
        let audio = builder.tracks.keys.filter { $0 != "V" }.sorted { channelNumber($0) < channelNumber($1) }
            .compactMap { builder.tracks[$0].map(shifted) }
        if !audio.isEmpty {
            diagnostics.append(fileOrigin.diagnostic(
                .warning, "audio channels (A1, A2, …) are not routed: each audio event plays its source's sound as a whole"))
        }
        let markers = list.locators.map { "\($0.text) (line \($0.line))" }
        var edit = ImportedEdit(name: list.title, frameRate: rate, videoTracks: video, audioTracks: audio,
                                startTime: start, diagnostics: diagnostics, markers: markers)
        edit.timedMarkers = builder.recordMarkers.compactMap { marker in
            (try? marker.at - start).map { ImportedMarker(at: $0, name: marker.name) }
        }
        edit.markerDiagnostics = builder.locatorDiagnostics
        return edit
    }

    private static func channelNumber(_ name: String) -> Int { Int(name.dropFirst()) ?? 0 }

    /// Builds tracks from edits in list order.
    private struct Builder {
        let file: String
        let rate: Rational
        var diagnostics: [Diagnostic]
        var tracks: [String: ImportedTrack] = [:]
        var earliestRecord: Time?
        /// Locators written in record timecode, at their record times (before the list's start is subtracted).
        var recordMarkers: [ImportedMarker] = []
        /// Locators that could not be placed: said only when markers are asked for (`--markers-as-chapters`).
        var locatorDiagnostics: [Diagnostic] = []
        let frameDuration: Time

        init(file: String, rate: Rational, diagnostics: [Diagnostic]) {
            self.file = file
            self.rate = rate
            self.diagnostics = diagnostics
            self.frameDuration = Time(Rational(rate.denominator, rate.numerator))
        }

        mutating func build(_ edits: [CMXEdit]) {
            var index = 0
            while index < edits.count {
                let edit = edits[index]
                let origin = ImportOrigin(file: file, line: edit.line, event: edit.event)
                if edit.transition == "C" {
                    // A zero-length cut followed by a transition line is the outgoing side of that transition.
                    if index + 1 < edits.count, edits[index + 1].transition != "C", isZeroLength(edit) {
                        let next = edits[index + 1]
                        if next.event != edit.event {
                            diagnostics.append(ImportOrigin(file: file, line: next.line, event: next.event).diagnostic(
                                .error, "transition and event id mismatch: the transition's outgoing line \(edit.line) is event \(edit.event)",
                                hint: "give the zero-length cut before a transition the transition's event number"))
                            index += 2
                            continue
                        }
                        place(next, outgoing: edit)
                        index += 2
                        continue
                    }
                    if isZeroLength(edit) {
                        diagnostics.append(origin.diagnostic(.warning, "zero-length cut with no transition after it ignored"))
                    } else {
                        place(edit, outgoing: nil)
                    }
                } else {
                    place(edit, outgoing: nil)
                }
                index += 1
            }
        }

        func isZeroLength(_ edit: CMXEdit) -> Bool {
            edit.recordIn.text == edit.recordOut.text
        }

        /// The frame number of a timecode field at the list's rate, or a diagnostic.
        mutating func frames(_ timecode: CMXTimecode, _ origin: ImportOrigin, _ what: String) -> Int64? {
            do {
                let label = try Timecode(parsing: timecode.text.replacingSeparators(dropFrame: timecode.dropFrame))
                return try label.frameNumber(frameRate: rate)
            } catch {
                let nominal = (try? Timecode.nominalFramesPerSecond(rate)) ?? 0
                diagnostics.append(origin.diagnostic(
                    .error, "\(what) \(timecode.text): \(error.message)",
                    hint: "the list is read at \(rate.doubleRateText) fps (\(nominal) frames per second of timecode); pass --frame-rate if it was cut at another rate"))
                return nil
            }
        }

        /// Places an edit (a cut, or the incoming side of a transition whose outgoing side is `outgoing`).
        mutating func place(_ edit: CMXEdit, outgoing: CMXEdit?) {
            let origin = ImportOrigin(file: file, line: edit.line, event: edit.event)
            guard let sourceIn = frames(edit.sourceIn, origin, "source in"),
                  let sourceOut = frames(edit.sourceOut, origin, "source out"),
                  let recordIn = frames(edit.recordIn, origin, "record in"),
                  let recordOut = frames(edit.recordOut, origin, "record out")
            else { return }
            guard recordOut > recordIn else {
                diagnostics.append(origin.diagnostic(.error, "record out \(edit.recordOut.text) is not after record in \(edit.recordIn.text)"))
                return
            }
            guard sourceOut >= sourceIn else {
                diagnostics.append(origin.diagnostic(.error, "source out \(edit.sourceOut.text) is before source in \(edit.sourceIn.text)"))
                return
            }
            let recordFrames = recordOut - recordIn
            let sourceFrames = sourceOut - sourceIn
            let isBlack = edit.reel.uppercased() == "BL" || edit.reel.uppercased() == "BLK"
            var speed = Rational.one
            var freeze = false
            if let motion = edit.motion {
                let motionOrigin = ImportOrigin(file: file, line: motion.line, event: edit.event)
                if motion.speed.isNegative {
                    diagnostics.append(motionOrigin.diagnostic(
                        .error, "reverse motion (M2 \(motion.text)) is not supported: a composition plays its sources forwards only",
                        hint: "render the reversed shot to a file and cut that in", category: .unsupported))
                    return
                }
                if motion.speed.isZero {
                    freeze = true
                } else {
                    speed = (try? motion.speed.divided(by: rate)) ?? .one
                    let expected = Double(recordFrames) * speed.doubleValue
                    if !isBlack, abs(expected - Double(sourceFrames)) > 1.5 {
                        diagnostics.append(motionOrigin.diagnostic(
                            .warning, "M2 \(motion.text) at \(rate.doubleRateText) fps is speed \(formatted(speed.doubleValue)): \(recordFrames) record frames use \(formatted(expected)) source frames, but the source out says \(sourceFrames); the source out is ignored"))
                    }
                }
            } else if !isBlack, sourceFrames != recordFrames {
                diagnostics.append(origin.diagnostic(
                    .error, "source duration \(sourceFrames) frames differs from record duration \(recordFrames) frames and no M2 line gives a speed",
                    hint: "fix the timecodes, or pass --frame-rate if the list was cut at another rate"))
                return
            }
            guard let recordStart = try? Time.frames(recordIn, frameDuration: frameDuration),
                  let recordDuration = try? Time.frames(recordFrames, frameDuration: frameDuration),
                  let sourceStart = try? Time.frames(sourceIn, frameDuration: frameDuration)
            else {
                diagnostics.append(origin.diagnostic(.error, "timecodes too large"))
                return
            }
            earliestRecord = min(earliestRecord ?? recordStart, recordStart)

            var transition: ImportedTransition?
            if let outgoing, let length = edit.transitionFrames {
                let outgoingOrigin = ImportOrigin(file: file, line: outgoing.line, event: outgoing.event)
                let kind: ImportedTransitionKind
                if edit.transition == "D" {
                    kind = .dissolve
                } else if edit.transition == "W001" {
                    kind = .wipe(.right)
                } else if edit.transition.hasPrefix("W") {
                    kind = .wipe(.right)
                    diagnostics.append(origin.diagnostic(
                        .warning, "SMPTE wipe \(edit.transition) is rendered as wipe 001 (left-to-right edge); reel has no shaped wipes"))
                } else {
                    kind = .dissolve
                    diagnostics.append(origin.diagnostic(
                        .warning, "transition \(edit.transition) (key) is not supported; rendered as a dissolve"))
                }
                if let frames = try? Time.frames(length, frameDuration: frameDuration) {
                    var out = frames
                    if frames > recordDuration {
                        out = recordDuration
                        diagnostics.append(origin.diagnostic(.warning, "transition of \(length) frames is longer than its \(recordFrames)-frame event; shortened to the event"))
                    }
                    transition = ImportedTransition(kind: kind, inOffset: .zero, outOffset: out, origin: outgoingOrigin)
                    transition?.fromBlack = ["BL", "BLK"].contains(outgoing.reel.uppercased())
                }
            } else if edit.transition != "C" {
                diagnostics.append(origin.diagnostic(
                    .warning, "transition \(edit.transition) has no zero-length outgoing line before it; it fades from whatever precedes it"))
                if let length = edit.transitionFrames, let frames = try? Time.frames(min(length, recordFrames), frameDuration: frameDuration) {
                    transition = ImportedTransition(kind: edit.transition == "D" ? .dissolve : .wipe(.right),
                                                    inOffset: .zero, outOffset: frames, origin: origin)
                }
            }
            for effect in edit.unsupportedEffects {
                diagnostics.append(ImportOrigin(file: file, line: effect.line, event: edit.event).diagnostic(
                    .warning, "effect \"\(effect.text)\" ignored: the list carries no parameters for it"))
            }

            let name = edit.toClipName.flatMap { outgoing != nil ? $0 : nil } ?? edit.clipName ?? edit.reel
            let content: PieceContent
            if isBlack {
                content = .black
            } else {
                var names: [String] = []
                for candidate in [edit.clipName, edit.toClipName, edit.reel].compactMap({ $0 }) where !names.contains(candidate) {
                    if outgoing != nil, candidate == edit.clipName, edit.toClipName != nil { continue }
                    names.append(candidate)
                }
                content = .media(MediaLink(locator: edit.sourceFile, names: names))
            }
            var piece = ImportedPiece(name: name, origin: origin, recordStart: recordStart, recordDuration: recordDuration,
                                      content: content, sourceStart: sourceStart)
            piece.speed = speed
            piece.freeze = freeze
            piece.transitionIn = transition
            piece.isStill = Self.isStillName(name) || Self.isStillName(edit.sourceFile ?? "")
            placeLocators(of: edit, on: &piece, source: sourceIn..<max(sourceOut, sourceIn + (freeze ? 1 : 0)),
                          record: recordIn..<recordOut)

            let (video, audio) = channels(of: edit, origin)
            if video {
                var videoPiece = piece
                videoPiece.withAudio = !audio.isEmpty && edit.extraAudioChannels.isEmpty && !freeze
                overwrite(videoPiece, on: "V", kind: .video)
            }
            if !video || edit.extraAudioChannels.count > 0 {
                for channel in audio + edit.extraAudioChannels {
                    overwrite(piece, on: "A\(channel)", kind: .audio)
                }
            }
        }

        /// An event's locators: a timecode inside the event's source range marks the clip (its media's time, so
        /// the marker moves with the clip); otherwise one inside its record range marks the timeline. Lists differ
        /// in which one they write (Avid writes source timecode, others record timecode); a source range that
        /// overlaps the record range reads as source.
        mutating func placeLocators(of edit: CMXEdit, on piece: inout ImportedPiece, source: Range<Int64>,
                                    record: Range<Int64>) {
            for locator in edit.locators {
                let origin = ImportOrigin(file: file, line: locator.line, event: edit.event)
                guard let label = try? Timecode(parsing: locator.timecode.text.replacingSeparators(dropFrame: locator.timecode.dropFrame)),
                      let frame = try? label.frameNumber(frameRate: rate),
                      let at = try? Time.frames(frame, frameDuration: frameDuration)
                else {
                    locatorDiagnostics.append(origin.diagnostic(.warning, "locator timecode \(locator.timecode.text) is not a timecode at \(rate.doubleRateText) fps; the locator is left out"))
                    continue
                }
                if source.contains(frame) {
                    piece.markers.append(ImportedMarker(at: at, name: locator.name))
                } else if record.contains(frame) {
                    recordMarkers.append(ImportedMarker(at: at, name: locator.name))
                } else {
                    locatorDiagnostics.append(origin.diagnostic(.warning, "locator \(locator.timecode.text) lies outside event \(edit.event)'s source (\(edit.sourceIn.text)–\(edit.sourceOut.text)) and record (\(edit.recordIn.text)–\(edit.recordOut.text)) ranges; it is left out"))
                }
            }
        }

        /// The channels an edit records: video, and audio channel numbers.
        mutating func channels(of edit: CMXEdit, _ origin: ImportOrigin) -> (Bool, [Int]) {
            let parts = edit.channels.split(separator: "/").map(String.init)
            var video = false
            var audio: [Int] = []
            for part in parts {
                switch part {
                case "V": video = true
                case "B": video = true; audio.append(1)
                case "A", "A1": audio.append(1)
                case "AA", "A12": audio += [1, 2]
                case "NONE": break
                default:
                    if part.hasPrefix("A"), let number = Int(part.dropFirst()), number > 0 {
                        audio.append(number)
                    } else {
                        diagnostics.append(origin.diagnostic(.warning, "channel field \"\(edit.channels)\" not understood; the event is read as video"))
                        video = true
                    }
                }
            }
            return (video, audio)
        }

        /// Records `piece` on a channel, replacing whatever earlier events put in its record range.
        mutating func overwrite(_ piece: ImportedPiece, on channel: String, kind: TrackKind) {
            var track = tracks[channel] ?? ImportedTrack(kind: kind, name: channel, pieces: [])
            let overlapped = track.pieces.filter { $0.recordStart < piece.recordEnd && piece.recordStart < $0.recordEnd }
            for earlier in overlapped {
                let start = max(earlier.recordStart, piece.recordStart)
                let end = min(earlier.recordEnd, piece.recordEnd)
                let frames = ((try? (end - start).quotient(dividingBy: frameDuration, rounding: .nearest)) ?? 0)
                diagnostics.append(piece.origin.diagnostic(
                    .warning, "overlaps event \(earlier.origin.event ?? "?") (line \(earlier.origin.line ?? 0)) by \(frames) frames on \(channel); the later event replaces the overlap, as a record edit does"))
            }
            track.overwrite(with: piece, frameDuration: frameDuration, diagnostics: &diagnostics)
            tracks[channel] = track
        }

        private static func isStillName(_ name: String) -> Bool {
            let lower = name.lowercased()
            return [".jpg", ".jpeg", ".png", ".tif", ".tiff", ".bmp"].contains { lower.hasSuffix($0) }
        }

        private func formatted(_ value: Double) -> String {
            String((value * 1000).rounded() / 1000)
        }
    }
}

extension String {
    /// A timecode with its last separator made `;` for drop-frame (Avid writes drop-frame with `:`) or `:`.
    func replacingSeparators(dropFrame: Bool) -> String {
        var fields = self.split(omittingEmptySubsequences: false, whereSeparator: { $0 == ":" || $0 == ";" || $0 == "." })
            .map(String.init)
        guard fields.count == 4 else { return self }
        fields[3] = (dropFrame ? ";" : ":") + fields[3]
        return fields[0] + ":" + fields[1] + ":" + fields[2] + fields[3]
    }
}

extension Rational {
    /// The rate as people write it: 24, 25, 29.97, 23.976.
    var doubleRateText: String {
        if denominator == 1 { return String(numerator) }
        return String((doubleValue * 1000).rounded() / 1000)
    }
}
