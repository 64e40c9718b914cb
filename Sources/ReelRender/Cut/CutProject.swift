import Foundation
import ReelModel
import ReelTime

/// Writes the planned cut as an editing-form project (docs/format.md, "reel cut") and its report.
///
/// Inputs with video become clips of the storyline, one per kept piece, `in` and `out` in exact source time; an
/// audio-only input's kept pieces become `timeline.audio` entries placed back to back (an audio-only asset cannot
/// be a clip), with `output.end` at their end. Where the sound jumps — between two clips that do not continue each
/// other in one source — it fades out and in over `fadeLength` (at most half of the clip), so no cut clicks: on
/// the storyline through ramps of the `main` track's volume automation, on audio entries through their `fadeIn`
/// and `fadeOut`. The project is read back by the same reader as any other.
public enum CutProject {
    /// The length of the fade on each side of a cut: 10 ms, shortened to half of a clip shorter than 20 ms.
    public static let fadeLength = Time(value: 1, timescale: 100)

    /// One kept piece on its way into the project.
    private struct Placed {
        var asset: String
        var input: CutInput
        var range: TimeRange
        var at: Time
        /// 1, or `--speed-silence` for a silence played fast.
        var speed = Rational.one
        var fadeIn = Time.zero
        var fadeOut = Time.zero
        /// Why the stretches around it were cut, for people reading the project (`label`); nil: nothing was.
        var label: String?
        var reachesEnd: Bool { range.end >= input.duration }
        /// Its length on the timeline: its source length over its speed.
        var length: Time { (try? range.duration.divided(by: speed)) ?? range.duration }
    }

    /// The project's JSON text (pretty, with a final newline). Asset paths inside `projectDirectory` are written
    /// relative to it, others absolute. With `silenceSpeed` (`--speed-silence`), stretches removed only for
    /// silence stay as clips at that speed instead of going. Throws `.invalid` when nothing is kept of any input;
    /// `.usage` when inputs with video and audio-only inputs are mixed (the storyline and the audio tracks could
    /// not follow one another), or when silence is to be sped up on audio-only inputs (audio tracks have no speed).
    public static func json(_ inputs: [CutInput], projectDirectory: String, silenceSpeed: Rational? = nil,
                            captions: [JSONValue?] = []) throws(RenderError) -> String
    {
        if inputs.contains(where: \.hasVideo), let audioOnly = inputs.first(where: { !$0.hasVideo }) {
            throw RenderError(.usage, "\(audioOnly.path) has no video while other inputs have: cut audio-only files "
                              + "and video files in separate runs")
        }
        if silenceSpeed != nil, let audioOnly = inputs.first(where: { !$0.hasVideo }) {
            throw RenderError(.usage, "--speed-silence: \(audioOnly.path) has no video, and audio tracks play at "
                              + "speed 1 only")
        }
        var assets: [(key: String, value: JSONValue)] = []
        var placed: [Placed] = []
        var position = Time.zero
        var usedIDs: Set<String> = []
        var captionsOfAsset: [String: JSONValue] = [:]
        do {
            for (index, input) in inputs.enumerated() {
                let id = uniqueID(for: input.path, used: &usedIDs)
                var asset: [(key: String, value: JSONValue)] = [("path", .string(written(input.path, in: projectDirectory)))]
                if let track = input.audioTrack { asset.append(("audioTrack", .number(String(track)))) }
                assets.append((id, .object(JSONObject(values: asset))))
                if index < captions.count, let attached = captions[index] { captionsOfAsset[id] = attached }
                func isFast(_ piece: CutPiece) -> Bool { silenceSpeed != nil && piece.reasons == [.silence] }
                let labels = self.labels(input.pieces, placing: { $0.kept || isFast($0) })
                for (number, piece) in input.pieces.enumerated() {
                    var entries = [Placed(asset: id, input: input, range: piece.range, at: position)]
                    if !piece.kept {
                        guard let silenceSpeed, isFast(piece) else { continue }
                        entries = try fast(entries[0], speed: silenceSpeed)
                    }
                    entries[0].label = labels[number]
                    for var entry in entries {
                        entry.at = position
                        placed.append(entry)
                        position = try position + entry.length
                    }
                }
            }
        } catch {
            throw RenderError(.invalid, "the cut's total length cannot be represented exactly (\(error))")
        }
        guard placed.contains(where: { $0.speed == .one }) else {
            throw RenderError(.invalid, "nothing is left to keep in \(inputs.map(\.path).joined(separator: ", ")): "
                              + "every stretch was cut (raise --silence's threshold or lower --min-clip)")
        }
        addFades(&placed)
        var timeline: [(key: String, value: JSONValue)] = []
        var output: [(key: String, value: JSONValue)] = []
        if inputs[0].hasVideo {
            timeline.append(("clips", .array(placed.map { JSON(clip($0, captions: captionsOfAsset[$0.asset])) })))
            let keys = placed.flatMap(volumeKeys)
            if !keys.isEmpty {
                let main = JSONObject(values: [("track", .string("main")), ("volume", .array(keys.map { JSON($0) }))])
                timeline.append(("volume", .array([JSON(.object(main))])))
            }
        } else {
            output = [("size", .array([JSON(.number("1920")), JSON(.number("1080"))])), ("end", time(position))]
            timeline.append(("clips", .array([])))
            timeline.append(("audio", .array(placed.enumerated().map {
                JSON(audioEntry($1, number: $0 + 1, captions: captionsOfAsset[$1.asset]))
            })))
        }
        var document: [(key: String, value: JSONValue)] = [("reel", .number("1"))]
        if !output.isEmpty { document.append(("output", .object(JSONObject(values: output)))) }
        document.append(("assets", .object(JSONObject(values: assets))))
        document.append(("timeline", .object(JSONObject(values: timeline))))
        return JSONWriter.write(.object(JSONObject(values: document)), pretty: true) + "\n"
    }

    /// The report's JSON text: per input every removed range with its reasons and level, and the totals.
    public static func report(_ inputs: [CutInput]) -> String {
        var totalKept = 0.0
        var totalRemoved = 0.0
        var entries: [JSON] = []
        for input in inputs {
            var kept = 0.0
            var removed = 0.0
            var ranges: [JSON] = []
            for piece in input.pieces {
                if piece.kept {
                    kept += piece.range.duration.seconds
                    continue
                }
                removed += piece.range.duration.seconds
                var members: [(key: String, value: JSONValue)] = [
                    ("start", seconds(piece.range.start)), ("end", seconds(piece.range.end)),
                    ("reason", .string(piece.reasons.first?.rawValue ?? "removed")),
                    ("reasons", .array(piece.reasons.map { JSON(.string($0.rawValue)) })),
                ]
                if piece.reasons.contains(.silence) {
                    members.append(("level", piece.level.flatMap { $0.isFinite ? number($0, places: 1) : nil } ?? .null))
                }
                if !piece.words.isEmpty {
                    members.append(("words", .array(piece.words.map { JSON(.string($0)) })))
                }
                ranges.append(JSON(.object(JSONObject(values: members))))
            }
            totalKept += kept
            totalRemoved += removed
            var members: [(key: String, value: JSONValue)] = [
                ("path", .string(input.path)), ("duration", seconds(input.duration)),
                ("kept", number(kept, places: 6)), ("removed", number(removed, places: 6)),
                ("removedRanges", .array(ranges)),
            ]
            if let level = input.silenceLevel { members.append(("silenceLevel", number(level, places: 2))) }
            if let loudness = input.loudness { members.append(("loudness", number(loudness, places: 2))) }
            if !input.shotStarts.isEmpty {
                members.append(("shotStarts", .array(input.shotStarts.map { JSON(seconds($0)) })))
            }
            entries.append(JSON(.object(JSONObject(values: members))))
        }
        let totals = JSONObject(values: [
            ("kept", number(totalKept, places: 6)), ("removed", number(totalRemoved, places: 6)),
            ("cuts", .number(String(inputs.reduce(0) { $0 + $1.pieces.filter { !$0.kept }.count }))),
        ])
        return JSONWriter.write(.object(JSONObject(values: [("inputs", .array(entries)), ("totals", .object(totals))])),
                                pretty: true) + "\n"
    }

    /// The kept pieces as a CMX 3600 edit decision list, for editors: one cut event per kept piece (`AA/V`, picture
    /// and sound), reel `AX` with `* FROM CLIP NAME:` and `* SOURCE FILE:` naming the file, source timecodes
    /// counting frames from the media's start, record timecodes from 01:00:00:00, non-drop-frame at the inputs'
    /// rate (a list does not state its rate: `reel import --frame-rate` reads it back). Throws `.usage` unless
    /// every input has video at one frame rate.
    public static func edl(_ inputs: [CutInput], title: String) throws(RenderError) -> String {
        var frameDuration: Time?
        for input in inputs {
            guard input.hasVideo, case .frames(_, let duration) = input.grid else {
                throw RenderError(.usage, "--edl: \(input.path) has no video, and an edit decision list holds pictures")
            }
            if let frameDuration, frameDuration != duration {
                throw RenderError(.usage, "--edl: the inputs have different frame rates, and a list has one")
            }
            frameDuration = duration
        }
        guard let frameDuration, frameDuration > .zero else {
            throw RenderError(.usage, "--edl: no input to list")
        }
        // Timecodes count frames at the rate's whole-number base (30 for 30000/1001, as non-drop-frame does).
        let base = max(1, Int((1 / frameDuration.seconds).rounded()))
        func timecode(_ frames: Int64) -> String {
            let b = Int64(base)
            return String(format: "%02lld:%02lld:%02lld:%02lld", frames / (b * 3600), frames / (b * 60) % 60,
                          frames / b % 60, frames % b)
        }
        func frames(_ t: Time) -> Int64 {
            (try? t.quotient(dividingBy: frameDuration, rounding: .nearest)) ?? 0
        }
        let flat = title.map { $0.isNewline ? " " : $0 }
        var lines = ["TITLE: \(String(flat))", "FCM: NON-DROP FRAME", ""]
        var record = Int64(base) * 3600
        var event = 0
        for input in inputs {
            let name = URL(fileURLWithPath: input.path).lastPathComponent
            let file = URL(fileURLWithPath: input.path).standardizedFileURL.path
            let labels = Self.labels(input.pieces, placing: \.kept)
            for (index, piece) in input.pieces.enumerated() where piece.kept {
                let sourceIn = frames(piece.range.start), sourceOut = frames(piece.range.end)
                guard sourceOut > sourceIn else { continue }
                event += 1
                let recordOut = record + (sourceOut - sourceIn)
                lines.append(String(format: "%03d  AX       AA/V  C        ", event)
                             + "\(timecode(sourceIn)) \(timecode(sourceOut)) \(timecode(record)) \(timecode(recordOut))")
                lines.append("* FROM CLIP NAME: \(name)")
                lines.append("* SOURCE FILE: \(file)")
                if let label = labels[index] { lines.append("* COMMENT: " + String(label.map { $0.isNewline ? " " : $0 })) }
                lines.append("")
                record = recordOut
            }
        }
        return lines.joined(separator: "\n")
    }

    /// A silence played at `speed`, as a clip whose timeline length is whole frames — so the clips after it stay on
    /// the output's frame grid — and the rest of it at speed 1: the fast part spans a multiple of speed × frames
    /// in source time (of `speed.numerator` frames, for a speed N/D), the rest is shorter than that.
    private static func fast(_ piece: Placed, speed: Rational) throws(TimeError) -> [Placed] {
        guard case .frames(_, let frameDuration) = piece.input.grid else { return [piece] }
        let step = try frameDuration.multiplied(by: Rational(speed.numerator))
        let steps = try piece.range.duration.quotient(dividingBy: step, rounding: .down)
        guard steps > 0 else { return [piece] }
        let fastEnd = try piece.range.start + step.multiplied(by: Rational(steps))
        var fast = piece
        fast.range = try TimeRange(start: piece.range.start, end: fastEnd)
        fast.speed = speed
        guard fastEnd < piece.range.end else { return [fast] }
        var rest = piece
        rest.range = try TimeRange(start: fastEnd, end: piece.range.end)
        return [fast, rest]
    }

    // MARK: Fades

    /// Gives each placed piece a fade where its sound does not continue the piece beside it.
    private static func addFades(_ placed: inout [Placed]) {
        for index in placed.indices {
            let piece = placed[index]
            let half = (try? piece.length.divided(by: Rational(2))) ?? .zero
            let length = min(fadeLength, half)
            let previous = index > 0 ? placed[index - 1] : nil
            let next = index + 1 < placed.count ? placed[index + 1] : nil
            let continuesPrevious = previous.map { $0.asset == piece.asset && $0.range.end == piece.range.start }
                ?? piece.range.start.isZero
            let continuedByNext = next.map { $0.asset == piece.asset && $0.range.start == piece.range.end }
                ?? piece.reachesEnd
            if !continuesPrevious { placed[index].fadeIn = length }
            if !continuedByNext { placed[index].fadeOut = length }
        }
    }

    /// The `main` track's volume ramps of one clip's fades, in timeline seconds.
    private static func volumeKeys(_ piece: Placed) -> [JSONValue] {
        var keys: [JSONValue] = []
        if piece.fadeIn > .zero { keys.append(ramp(start: piece.at, length: piece.fadeIn, from: "0", to: "1")) }
        if piece.fadeOut > .zero, let end = try? piece.at + piece.length, let start = try? end - piece.fadeOut {
            keys.append(ramp(start: start, length: piece.fadeOut, from: "1", to: "0"))
        }
        return keys
    }

    private static func ramp(start: Time, length: Time, from: String, to: String) -> JSONValue {
        .object(JSONObject(values: [("start", time(start)), ("duration", time(length)), ("from", .number(from)),
                                    ("to", .number(to))]))
    }

    // MARK: Entries

    /// A storyline clip; `captions` (its input's, in the input's source time) follow its trim as clip captions do.
    private static func clip(_ piece: Placed, captions: JSONValue?) -> JSONValue {
        var members: [(key: String, value: JSONValue)] = [("asset", .string(piece.asset)), ("in", time(piece.range.start))]
        if !piece.reachesEnd { members.append(("out", time(piece.range.end))) }
        if piece.speed != .one {
            let speed = piece.speed
            members.append(("speed", speed.denominator == 1 ? .number(String(speed.numerator)) : time(Time(speed))))
        }
        if let captions { members.append(("captions", captions)) }
        if let label = piece.label { members.append(("label", .string(label))) }
        return .object(JSONObject(values: members))
    }

    /// An extra audio track playing a kept piece of an audio-only input; `captions` (the input's, in its source
    /// time) follow the piece's trim as a clip's do.
    private static func audioEntry(_ piece: Placed, number: Int, captions: JSONValue?) -> JSONValue {
        var members: [(key: String, value: JSONValue)] = [
            ("id", .string("cut \(number)")), ("asset", .string(piece.asset)), ("at", time(piece.at)),
            ("in", time(piece.range.start)),
        ]
        if !piece.reachesEnd { members.append(("out", time(piece.range.end))) }
        if piece.fadeIn > .zero { members.append(("fadeIn", time(piece.fadeIn))) }
        if piece.fadeOut > .zero { members.append(("fadeOut", time(piece.fadeOut))) }
        if let captions { members.append(("captions", captions)) }
        if let label = piece.label { members.append(("label", .string(label))) }
        return .object(JSONObject(values: members))
    }

    // MARK: Labels

    /// The `label` of each piece of one source that goes into the project (`placing`), by its index: why the
    /// stretches since the piece placed before it were cut ("after a cut of 2.1–3.4 s: silence (peak -52.3
    /// dBFS)"), for a removed piece placed anyway (a silence played fast) what it is, and for the last placed piece
    /// what was cut after it to the source's end. Pieces with nothing to say have no entry.
    static func labels(_ pieces: [CutPiece], placing: (CutPiece) -> Bool) -> [Int: String] {
        var labels: [Int: [String]] = [:]
        var cut: [CutPiece] = []
        var last: Int?
        for (index, piece) in pieces.enumerated() {
            guard placing(piece) else {
                cut.append(piece)
                continue
            }
            if !cut.isEmpty { labels[index, default: []].append("after " + cutText(cut)) }
            if !piece.kept { labels[index, default: []].append("\(describe(piece)), played fast") }
            cut = []
            last = index
        }
        if let last, !cut.isEmpty { labels[last, default: []].append("then " + cutText(cut) + " to the source's end") }
        return labels.mapValues { $0.joined(separator: "; ") }
    }

    /// "a cut of 2.1–3.4 s: silence (peak -52.3 dBFS)", one clause per stretch, joined with "and".
    private static func cutText(_ cuts: [CutPiece]) -> String {
        cuts.map { "a cut of " + describe($0) }.joined(separator: " and ")
    }

    /// A removed stretch in source seconds and its reasons: "2.1–3.4 s: silence (peak -52.3 dBFS) and filler \"um\"".
    private static func describe(_ piece: CutPiece) -> String {
        // A stretch cut for words of both kinds (a filler that --remove-words names too) names its words once, as
        // filler.
        let reasons = piece.reasons.filter { $0 != .word || !piece.reasons.contains(.filler) }.map { reason -> String in
            switch reason {
            case .silence:
                guard let level = piece.level else { return "silence" }
                return level.isFinite ? "silence (peak \(String(format: "%.1f", level)) dBFS)" : "silence (digital silence)"
            case .removed: return "removed by hand (--remove)"
            case .short: return "a piece shorter than --min-clip between cuts"
            case .still: return "a still picture"
            case .filler, .word:
                var named: [String] = []
                for word in piece.words where !named.contains(word) { named.append(word) }
                let words = named.map { "\"\($0)\"" }.joined(separator: ", ")
                let noun = reason == .filler ? "filler" : "word"
                return words.isEmpty ? noun : "\(noun) \(words)"
            }
        }
        return "\(secondsText(piece.range.start))–\(secondsText(piece.range.end)) s: " + reasons.joined(separator: " and ")
    }

    /// Seconds as the labels write them: at most three decimals, trailing zeros dropped.
    private static func secondsText(_ t: Time) -> String {
        guard case .number(let text) = number(t.seconds, places: 3) else { return "\(t.seconds)" }
        return text
    }

    // MARK: Values

    /// A time as the project writes it, exactly: a decimal number when it has one ("1.1"), else "N/D" seconds.
    static func time(_ t: Time) -> JSONValue {
        if let decimal = t.decimalText, decimal.count <= 16 { return .number(decimal) }
        return .string("\(t.value)/\(t.timescale)")
    }

    /// Seconds for the report: a decimal number rounded to the microsecond.
    private static func seconds(_ t: Time) -> JSONValue { number(t.seconds, places: 6) }

    private static func number(_ value: Double, places: Int) -> JSONValue {
        var text = String(format: "%.\(places)f", value)
        if text.contains(".") {
            while text.hasSuffix("0") { text.removeLast() }
            if text.hasSuffix(".") { text.removeLast() }
        }
        if text == "-0" { text = "0" }
        return .number(text)
    }

    /// An asset id from the file's name (its first 56 characters, control characters as `_`), unique among `used`
    /// by a number after it ("talk 2").
    private static func uniqueID(for path: String, used: inout Set<String>) -> String {
        let stem = URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent
        let printable = String(stem.map { $0.asciiValue.map { $0 < 32 || $0 == 127 } == true ? "_" : $0 }
            .prefix(56))
        let base = printable.isEmpty || printable == "main" ? "input" : printable
        var id = base
        var number = 2
        while !used.insert(id).inserted {
            id = "\(base) \(number)"
            number += 1
        }
        return id
    }

    /// `path` as the project writes it: relative to `directory` when inside it, else absolute.
    public static func written(_ path: String, in directory: String) -> String {
        let absolute = URL(fileURLWithPath: path).standardizedFileURL.path
        let folder = URL(fileURLWithPath: directory).standardizedFileURL.path
        return absolute.hasPrefix(folder + "/") ? String(absolute.dropFirst(folder.count + 1)) : absolute
    }
}
