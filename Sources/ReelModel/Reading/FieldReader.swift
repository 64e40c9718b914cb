import Foundation
import ReelTime

/// What the readers of one document share besides their diagnostic sink: the frame rate that `"Nf"` and timecodes
/// count at, the declared asset ids, and the facts of the run (an `-o` override, the container capabilities).
/// `OutputReader` sets the frame rate (`DocumentReader` takes it from `videoComposition.frameDuration` in an
/// explicit-form project without one) and `AssetReader` the ids; the readers after them read against those.
final class ReadingContext {
    /// The project frame rate, for `"Nf"` and timecode times (output.frameRate, read first).
    var frameRate: Rational?
    /// Set when output.frameRate was written but invalid: frame-based times then say nothing more.
    var frameRateIsBroken = false
    /// The rate the project renders at when output.frameRate is absent (the first video clip's, found by probing),
    /// for `"Nf"` and timecodes; nil until the loader has probed.
    var defaultFrameRate: Rational?
    /// Set when a frame-based time was met with no frame rate to count it at.
    var neededFrameRate = false
    /// Asset ids declared in `assets`, for reference checks.
    var assetIDs: [String] = []
    /// Names declared in `compositions`, which a composition asset names before any file (issue 38).
    var compositionNames: [String] = []
    /// Set when the command line replaces `output.path` (`-o`): the written path's extension then says nothing.
    var outputPathOverridden = false
    /// Which codecs each container holds (FFmpeg's answers when a render loads the project).
    var capabilities = ContainerCapabilities.builtIn

    /// The frame duration for messages, when the frame rate is known.
    var frameDuration: Time? {
        guard let frameRate, let inverse = try? frameRate.inverse else { return nil }
        return Time(inverse)
    }
}

/// A reader of one part of a project document (`TimelineReader`, `OutputReader`, …). Every reader reports into the
/// shared `sink` and reads against the shared `context`; this protocol's extension is the field decoder they all
/// use: object shapes, scalars, ids, times and ranges, points and key lists, each reporting its own problems with
/// their JSON path and returning nil. A reader builds the readers it calls with `init(sharing:)`.
protocol FieldReader {
    var sink: DiagnosticSink { get }
    var context: ReadingContext { get }
    init(sink: DiagnosticSink, context: ReadingContext)
}

extension FieldReader {
    /// A reader of another part that reports into the same sink and reads against the same context.
    init(sharing other: some FieldReader) {
        self.init(sink: other.sink, context: other.context)
    }

    func error(_ path: JSONPath, _ message: String, hint: String? = nil, time: Time? = nil, frame: Int64? = nil,
               category: DiagnosticCategory = .invalid) {
        sink.error(path, message, hint: hint, time: time, frame: frame, category: category)
    }

    func unsupported(_ path: JSONPath, _ what: String) {
        sink.unsupported(path, what)
    }

    func typeError(_ json: JSON, _ path: JSONPath, expected: String) {
        sink.typeError(json, path, expected: expected)
    }

    /// The frame duration for messages, when the frame rate is known.
    var frameDuration: Time? { context.frameDuration }

    // MARK: Objects

    /// Checks that `json` is an object of `shape`: its keys among `shape.allowed`, `shape.required` present.
    /// Unknown keys get a "did you mean" hint, `null` members an "omit" hint; both are left out of the result.
    func object(_ json: JSON, _ path: JSONPath, _ shape: ObjectShape, expected: String = "an object") -> Fields? {
        checkedObject(json, path, allowed: shape.allowed, required: shape.required, expected: expected)
    }

    /// Checks that `json` is an object whose keys are free (output.metadata): only `null` members are refused.
    func openObject(_ json: JSON, _ path: JSONPath) -> Fields? {
        checkedObject(json, path, allowed: json.value.objectValue?.keys ?? [], required: [], expected: "an object")
    }

    // Private, so that every reader names the shape of its object from the table in ObjectShape.swift.
    private func checkedObject(_ json: JSON, _ path: JSONPath, allowed: [String], required: [String],
                               expected: String) -> Fields? {
        guard case .object(let object) = json.value else {
            typeError(json, path, expected: expected)
            return nil
        }
        var members: [(key: String, value: JSON)] = []
        for member in object.members {
            let memberPath = path.key(member.key)
            if !allowed.contains(member.key) {
                let hint: String
                if let close = suggestion(for: member.key, among: allowed) {
                    hint = "did you mean \"\(close)\"?"
                } else if allowed.isEmpty {
                    hint = "remove it"
                } else {
                    hint = "allowed keys: " + allowed.joined(separator: ", ")
                }
                error(memberPath, "unknown key \"\(member.key)\"", hint: hint)
            } else if member.value.value == .null {
                error(memberPath, "null is not allowed here", hint: "omit an optional key instead")
            } else {
                members.append(member)
            }
        }
        let fields = Fields(members: members, path: path)
        for key in required where fields[key] == nil && object[key]?.value != .null {
            error(path, "missing required key \"\(key)\"")
        }
        return fields
    }

    /// Checks that `json` is an array. `null` elements are kept: the element's reader reports them
    /// ("found null"), so that every problem comes out in document order.
    func array(_ json: JSON, _ path: JSONPath, expected: String = "an array") -> [(JSON, JSONPath)]? {
        guard case .array(let elements) = json.value else {
            typeError(json, path, expected: expected)
            return nil
        }
        return elements.enumerated().map { ($0.element, path.index($0.offset)) }
    }

    // MARK: Scalars

    func string(_ json: JSON, _ path: JSONPath, nonEmpty: Bool = true) -> String? {
        guard case .string(let text) = json.value else {
            typeError(json, path, expected: "a string")
            return nil
        }
        if nonEmpty, text.isEmpty {
            error(path, "must not be empty")
            return nil
        }
        return text
    }

    /// A file name or path: a non-empty string without a NUL character, which no file system allows and which
    /// C would take as the end of the name (so `a.mov\u0000.txt` would silently open `a.mov`).
    func filePath(_ json: JSON, _ path: JSONPath) -> String? {
        guard let text = string(json, path) else { return nil }
        if text.unicodeScalars.contains("\u{0}") {
            error(path, "\(JSONWriter.quoted(text)) contains a NUL character (\\u0000), which no file name can hold",
                  hint: "remove it")
            return nil
        }
        return text
    }

    func bool(_ json: JSON, _ path: JSONPath) -> Bool? {
        guard case .bool(let value) = json.value else {
            typeError(json, path, expected: "true or false")
            return nil
        }
        return value
    }

    /// An integer-valued JSON number within `range`.
    func integer(_ json: JSON, _ path: JSONPath, in range: ClosedRange<Int>, what: String = "an integer") -> Int? {
        guard case .number(let text) = json.value else {
            typeError(json, path, expected: what)
            return nil
        }
        guard let exact = try? TimeSyntax.parseDecimal(text), exact.timescale == 1, let value = Int(exactly: exact.value)
        else {
            error(path, "\(text) is not \(what)", hint: "use a whole number from \(range.lowerBound) to \(range.upperBound)")
            return nil
        }
        guard range.contains(value) else {
            error(path, "\(text) is out of range", hint: "use a whole number from \(range.lowerBound) to \(range.upperBound)")
            return nil
        }
        return value
    }

    /// A finite JSON number as a double.
    func double(_ json: JSON, _ path: JSONPath, in range: ClosedRange<Double>? = nil) -> Double? {
        guard case .number(let text) = json.value else {
            typeError(json, path, expected: "a number")
            return nil
        }
        guard let value = Double(text), value.isFinite else {
            error(path, "\(text) is out of range")
            return nil
        }
        if let range, !range.contains(value) {
            error(path, "\(text) is out of range", hint: "use a number from \(plain(range.lowerBound)) to \(plain(range.upperBound))")
            return nil
        }
        return value
    }

    /// An exact rational: a JSON number (its decimal text) or an `"N/D"` string.
    func rational(_ json: JSON, _ path: JSONPath, expected: String) -> Rational? {
        let text: String
        switch json.value {
        case .number(let literal):
            text = literal
        case .string(let literal) where literal.contains("/"):
            text = literal
        default:
            typeError(json, path, expected: expected)
            return nil
        }
        do {
            if case .number = json.value {
                return try TimeSyntax.parseDecimal(text).rational
            }
            return try TimeSyntax.parseString(text, frameRate: nil).rational
        } catch {
            self.error(path, error.message, hint: "write \(expected)")
            return nil
        }
    }

    /// A frame rate (`output.frameRate`, an image sequence's `frameRate`): a JSON number (JSON's grammar, taken exactly) or an `"N/D"` string (SPEC §2.1); a
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

    /// A gain: a linear number or a `"-12dB"` string, 0…4.
    func gain(_ json: JSON, _ path: JSONPath) -> Double? {
        let value: Double
        switch json.value {
        case .number(let text):
            guard let linear = Double(text), linear.isFinite else {
                error(path, "gain \(text) is out of range", hint: "use a gain from 0 to 4 or a level like \"-12dB\"")
                return nil
            }
            value = linear
        case .string(let text):
            guard let decibels = Self.decibels(text) else {
                error(path, "\(JSONWriter.quoted(text)) is not a gain",
                      hint: "use a number from 0 to 4 or a level like \"-12dB\" (digits with an optional minus and "
                          + "fraction before dB; no plus sign, exponent or spaces)")
                return nil
            }
            value = pow(10, decibels / 20)
        default:
            typeError(json, path, expected: "a gain (a number or a level like \"-12dB\")")
            return nil
        }
        guard (0...4).contains(value) else {
            error(path, "gain \(json.value.numberText ?? json.value.stringValue ?? "") is out of range",
                  hint: "gains are from 0 to 4 (+12 dB)")
            return nil
        }
        return value
    }

    /// The level of a gain string: `-?digits(.digits)?dB` (the unit in any case), strictly, as SPEC §3.3 writes
    /// `"-12dB"`: no plus sign, exponent or spaces; nil otherwise.
    static func decibels(_ text: String) -> Double? {
        guard text.count > 2, text.suffix(2).lowercased() == "db" else { return nil }
        var number = text.dropLast(2)
        let negative = number.first == "-"
        if negative { number = number.dropFirst() }
        guard let level = try? TimeSyntax.parsePlainDecimal(String(number), subject: "gain") else { return nil }
        let magnitude = Double(level.value) / Double(level.timescale)
        return negative ? -magnitude : magnitude
    }

    func color(_ json: JSON, _ path: JSONPath) -> RGBAColor? {
        guard case .string(let text) = json.value else {
            typeError(json, path, expected: "a colour \"#RRGGBB\" or \"#RRGGBBAA\"")
            return nil
        }
        guard let color = RGBAColor(hex: text) else {
            error(path, "\"\(text)\" is not a colour", hint: "write colours as \"#RRGGBB\" or \"#RRGGBBAA\"")
            return nil
        }
        return color
    }

    /// `[w, h]` with each side 2…8192.
    func size(_ json: JSON, _ path: JSONPath) -> PixelSize? {
        guard let elements = array(json, path, expected: "a size [width, height]") else { return nil }
        guard elements.count == 2 else {
            error(path, "a size has 2 numbers, found \(elements.count)", hint: "write [width, height]")
            return nil
        }
        let width = integer(elements[0].0, elements[0].1, in: 2...8192, what: "a width in pixels")
        let height = integer(elements[1].0, elements[1].1, in: 2...8192, what: "a height in pixels")
        guard let width, let height else { return nil }
        return PixelSize(width: width, height: height)
    }

    /// `count` finite numbers in an array.
    func numbers(_ json: JSON, _ path: JSONPath, count: Int, expected: String,
                 in range: ClosedRange<Double>? = nil) -> [Double]? {
        guard let elements = array(json, path, expected: expected) else { return nil }
        guard elements.count == count else {
            error(path, "expected \(count) numbers, found \(elements.count)", hint: "write \(expected)")
            return nil
        }
        let values = elements.compactMap { double($0.0, $0.1, in: range) }
        return values.count == count ? values : nil
    }

    func enumeration<E: RawRepresentable & CaseIterable>(_ json: JSON, _ path: JSONPath, _ what: String) -> E?
    where E.RawValue == String {
        let names = E.allCases.map(\.rawValue)
        guard case .string(let text) = json.value else {
            typeError(json, path, expected: "one of " + names.map { "\"\($0)\"" }.joined(separator: ", "))
            return nil
        }
        if let value = E(rawValue: text) { return value }
        let hint = suggestion(for: text, among: names).map { "did you mean \"\($0)\"?" }
            ?? "use one of " + names.joined(separator: ", ")
        error(path, "unknown \(what) \"\(text)\"", hint: hint)
        return nil
    }

    /// An id: 1–64 printable characters.
    func identifier(_ text: String, _ path: JSONPath, what: String) -> Bool {
        let scalars = text.unicodeScalars
        if scalars.isEmpty || scalars.count > 64 {
            error(path, "\(what) \"\(text)\" must be 1 to 64 characters long")
            return false
        }
        if scalars.contains(where: { !isPrintable($0) }) {
            error(path, "\(what) \(JSONPath.printableQuoted(text)) contains a control character", hint: "ids are printable characters")
            return false
        }
        return true
    }

    /// A reference to an asset declared in `assets`.
    func assetReference(_ json: JSON, _ path: JSONPath) -> String? {
        guard let id = string(json, path) else { return nil }
        if !context.assetIDs.contains(id) {
            error(path, "unknown asset \"\(id)\"", hint: unknownAssetHint(id, among: context.assetIDs))
            return nil
        }
        return id
    }

    // MARK: Points and key lists

    /// `[x, y]`, two finite numbers.
    func point(_ json: JSON, _ path: JSONPath, what: String, in range: ClosedRange<Double>? = nil) -> LayerPoint? {
        numbers(json, path, count: 2, expected: what, in: range).map { LayerPoint(x: $0[0], y: $0[1]) }
    }

    /// A number within a key's `limits` (its row in the key table), refused with the limits' hint.
    func double(_ json: JSON, _ path: JSONPath, limits: KeyLimits) -> Double? {
        guard let value = double(json, path) else { return nil }
        guard limits.contains(value) else {
            error(path, "\(json.value.numberText ?? plain(value)) is out of range", hint: limits.hint)
            return nil
        }
        return value
    }

    /// A number within a key's `limits` whose lower bound is excluded, `what` naming it in the message.
    func positiveNumber(_ json: JSON, _ path: JSONPath, what: String, limits: KeyLimits) -> Double? {
        guard let value = double(json, path) else { return nil }
        guard limits.contains(value) else {
            error(path, "\(what) \(plain(value)) is outside (\(plain(limits.range.lowerBound)), \(plain(limits.range.upperBound))]",
                  hint: limits.hint)
            return nil
        }
        return value
    }

    /// A speed, a number or `"N/D"`, within `KeyLimits.speed` (compared exactly); `hintSuffix` follows the limits' hint.
    func speed(_ json: JSON, _ path: JSONPath, hintSuffix: String = "") -> Rational? {
        guard let value = rational(json, path, expected: "a speed (a number or \"N/D\")") else { return nil }
        let limits = KeyLimits.speed
        let low = plain(limits.range.lowerBound), high = plain(limits.range.upperBound)
        if let lowest = try? TimeSyntax.parseDecimal(low).rational, let highest = try? TimeSyntax.parseDecimal(high).rational,
           value < lowest || value > highest {
            error(path, "speed \(value) is outside \(low)…\(high)", hint: limits.hint + hintSuffix)
            return nil
        }
        return value
    }

    /// A number greater than 0 and at most `limit`.
    func positiveNumber(_ json: JSON, _ path: JSONPath, what: String, upTo limit: Double) -> Double? {
        guard let value = double(json, path) else { return nil }
        guard value > 0, value <= limit else {
            error(path, "\(what) \(plain(value)) is outside (0, \(plain(limit))]", hint: "use a \(what) greater than 0")
            return nil
        }
        return value
    }

    /// A list of chapters `[{"at": T, "title": "…"}]` (issue 39): `at` in movie time, or on a clip its source time;
    /// a title is one line. Nil after reporting a problem.
    func chapters(_ json: JSON, _ path: JSONPath) -> [Chapter]? {
        guard let elements = array(json, path, expected: "an array of chapters {\"at\", \"title\"}") else { return nil }
        var chapters: [Chapter] = []
        var valid = true
        for (chapterJSON, chapterPath) in elements {
            guard let fields = object(chapterJSON, chapterPath, .chapter) else {
                valid = false
                continue
            }
            let at = fields["at"].flatMap { instant($0, chapterPath.key("at")) }
            var title = fields["title"].flatMap { string($0, chapterPath.key("title")) }
            if let text = title, text.contains(where: \.isNewline) {
                error(chapterPath.key("title"), "a chapter title is one line", hint: "remove the line break")
                title = nil
            }
            guard let at, let title else {
                valid = false
                continue
            }
            chapters.append(Chapter(at: at, title: title, path: chapterPath))
        }
        return valid ? chapters : nil
    }

    /// An easing (`Easing.parse`): a name, `cubic-bezier(x1, y1, x2, y2)` or `steps(n[, position])`. `equalPower`
    /// only when `allowsEqualPower` (volume keys). `what` names the key in messages ("easing", "timing").
    func easing(_ json: JSON, _ path: JSONPath, what: String = "easing", allowsEqualPower: Bool = false) -> Easing? {
        let names = Easing.names.map(\.name).filter { allowsEqualPower || $0 != "equalPower" }
        let forms = names.joined(separator: ", ") + ", cubic-bezier(x1, y1, x2, y2) or steps(n[, start|end])"
        guard case .string(let text) = json.value else {
            typeError(json, path, expected: "an easing: " + forms)
            return nil
        }
        switch Easing.parse(text) {
        case .success(let easing):
            guard easing != .equalPower || allowsEqualPower else {
                error(path, "only volume keys may be \"equalPower\"",
                      hint: "use one of " + forms)
                return nil
            }
            return easing
        case .failure(.unknown):
            let hint = suggestion(for: text, among: names).map { "did you mean \"\($0)\"?" } ?? "use one of " + forms
            error(path, "unknown \(what) \"\(text)\"", hint: hint)
            return nil
        case .failure(.malformed(_, let reason)):
            error(path, "\(what) \"\(text)\": \(reason)", hint: "write e.g. \"cubic-bezier(0.25, 0.1, 0.25, 1)\" or \"steps(4)\"")
            return nil
        }
    }

    /// A key list (SPEC §4.3, issue 39): `{"at", "value"}` and `{"start", "duration"|"end", "from", "to"}` keys, each
    /// with an optional `"easing"`. On a ramp it shapes the ramp; on a step key it eases from the previous key's value,
    /// where that key ends, to this key's value at `at`, so `{"at", "value", "easing"}` keys are keyframes: such a key
    /// is read as that ramp (a step key without one, or with `"hold"`, jumps at `at`, as before). A ramp's legacy
    /// `"curve"` (`linear` | `equalPower`) is the same as its easing. `curves`: whether `equalPower` is allowed
    /// (volume keys only).
    func keyList<Value>(_ json: JSON, _ path: JSONPath, curves: Bool = false,
                        value: (JSON, JSONPath) -> Value?) -> KeyList<Value>? {
        guard let elements = array(json, path, expected: "an array of keys") else { return nil }
        var keys: [Key<Value>] = []
        var valid = true
        for (index, (keyJSON, keyPath)) in elements.enumerated() {
            let isSet = keyJSON.value.objectValue?["at"] != nil
            if isSet {
                guard let fields = object(keyJSON, keyPath, .stepKey) else {
                    valid = false
                    continue
                }
                let at = fields["at"].flatMap { instant($0, keyPath.key("at")) }
                let v = fields["value"].flatMap { value($0, keyPath.key("value")) }
                var written: Easing?
                if let json = fields["easing"] {
                    written = easing(json, keyPath.key("easing"), allowsEqualPower: curves)
                    if written == nil { valid = false }
                }
                guard let at, let v else {
                    valid = false
                    continue
                }
                guard let written, written != .hold else {
                    keys.append(.set(at: at, value: v))
                    continue
                }
                guard index > 0 else {
                    error(keyPath.key("easing"), "the first key has no key before it to ease from",
                          hint: "remove \"easing\", or put a key before it: {\"at\": 0, \"value\": …}")
                    valid = false
                    continue
                }
                // The previous key unreadable: reported already. One ending at or after `at`: a plain step, which
                // validation reports if it comes too early.
                guard let previous = keys.last, previous.end < at, let range = try? TimeRange(start: previous.end, end: at) else {
                    keys.append(.set(at: at, value: v))
                    continue
                }
                keys.append(.ramp(range, from: previous.finalValue, to: v, easing: written))
            } else {
                guard let fields = object(keyJSON, keyPath, .rampKey,
                                          expected: "a key {\"at\", \"value\"} or {\"start\", \"duration\", \"from\", \"to\"}")
                else {
                    valid = false
                    continue
                }
                let range = rangeFields(fields, what: "ramp")
                let from = fields["from"].flatMap { value($0, keyPath.key("from")) }
                let to = fields["to"].flatMap { value($0, keyPath.key("to")) }
                var shape = Easing.linear
                if fields.has("curve"), fields.has("easing") {
                    error(keyPath.key("curve"), "\"curve\" and \"easing\" are both given", hint: "keep \"easing\"")
                    valid = false
                } else if let json = fields["easing"] {
                    if let written = easing(json, keyPath.key("easing"), allowsEqualPower: curves) { shape = written } else { valid = false }
                } else if let curveJSON = fields["curve"] {
                    if let written: AudioCurve = enumeration(curveJSON, keyPath.key("curve"), "curve") {
                        if written != .linear, !curves {
                            error(keyPath.key("curve"), "only volume ramps may have a \"\(written.rawValue)\" curve",
                                  hint: "remove \"curve\": only volume ramps may be equal-power")
                            valid = false
                        }
                        shape = written.easing
                    } else {
                        valid = false
                    }
                }
                guard let range, let from, let to else {
                    valid = false
                    continue
                }
                keys.append(.ramp(range, from: from, to: to, easing: shape))
            }
        }
        return valid ? KeyList(keys) : nil
    }

    // MARK: Times

    /// A time in any form of SPEC §1; `"Nf"` and timecodes use the project frame rate.
    func time(_ json: JSON, _ path: JSONPath) -> Time? {
        switch json.value {
        case .number(let text):
            do {
                return try TimeSyntax.parseDecimal(text)
            } catch {
                self.error(path, error.message)
                return nil
            }
        case .string(let text):
            let rate = context.frameRate ?? (context.frameRateIsBroken ? nil : context.defaultFrameRate)
            if rate == nil, isFrameBased(text) {
                context.neededFrameRate = true
                if !context.frameRateIsBroken {
                    error(path, "\"\(text)\" counts frames, but the project has no frame rate",
                          hint: "set output.frameRate, or write the time in seconds (without output.frameRate, frames count at the first clip's rate once its media is probed)")
                }
                return nil
            }
            do {
                return try TimeSyntax.parseString(text, frameRate: rate)
            } catch {
                self.error(path, error.message, hint: TimeSyntax.writtenForms)
                return nil
            }
        default:
            typeError(json, path, expected: "a time (seconds, \"N/D\", \"Nf\" or a timecode)")
            return nil
        }
    }

    /// A time ≥ 0.
    func instant(_ json: JSON, _ path: JSONPath) -> Time? {
        guard let t = time(json, path) else { return nil }
        if t.isNegative {
            error(path, "time \(describeTime(t, frameDuration: frameDuration)) is negative", hint: "times start at 0")
            return nil
        }
        return t
    }

    /// A duration > 0.
    func positiveDuration(_ json: JSON, _ path: JSONPath, what: String = "duration") -> Time? {
        guard let t = time(json, path) else { return nil }
        if t.isNegative || t.isZero {
            error(path, "\(what) \(describeDuration(t, frameDuration: frameDuration)) is not greater than 0",
                  hint: what == "ramp" ? "use an {\"at\", \"value\"} key for a step" : "give it a length greater than 0")
            return nil
        }
        return t
    }

    /// `{"start": T, "duration": T}` or `{"start": T, "end": T}`, non-empty.
    func timeRange(_ json: JSON, _ path: JSONPath) -> TimeRange? {
        guard let fields = object(json, path, .timeRange,
                                  expected: "a time range {\"start\", \"duration\"|\"end\"}") else { return nil }
        return rangeFields(fields, what: "range")
    }

    /// The `start` and `duration`|`end` members of an object, as a non-empty range.
    func rangeFields(_ fields: Fields, what: String) -> TimeRange? {
        let start = fields["start"].flatMap { instant($0, fields.path.key("start")) }
        let durationJSON = fields["duration"]
        let endJSON = fields["end"]
        switch (durationJSON, endJSON) {
        case (nil, nil):
            error(fields.path, "missing \"duration\" or \"end\"", hint: "give the \(what) a duration or an end")
            return nil
        case (.some, .some):
            error(fields.path.key("end"), "\"duration\" and \"end\" are both given", hint: "keep one of them")
            return nil
        case (let durationJSON?, nil):
            guard let duration = positiveDuration(durationJSON, fields.path.key("duration"), what: what),
                  let start else { return nil }
            return makeRange(start: start, duration: duration, fields.path)
        case (nil, let endJSON?):
            guard let end = instant(endJSON, fields.path.key("end")), let start else { return nil }
            guard start < end else {
                error(fields.path.key("end"),
                      "\(what) ends at \(describeTime(end, frameDuration: frameDuration)), not after its start at \(describeTime(start, frameDuration: frameDuration))",
                      hint: what == "ramp" ? "use an {\"at\", \"value\"} key for a step" : "end it after its start")
                return nil
            }
            do {
                return try TimeRange(start: start, end: end)
            } catch {
                self.error(fields.path, "the \(what) is not representable")
                return nil
            }
        }
    }

    func makeRange(start: Time, duration: Time, _ path: JSONPath) -> TimeRange? {
        do {
            return try TimeRange(start: start, duration: duration)
        } catch {
            self.error(path, "the range's end is not representable")
            return nil
        }
    }
}

/// The usable (non-null, known) members of a checked object.
struct Fields {
    let members: [(key: String, value: JSON)]
    let path: JSONPath

    subscript(key: String) -> JSON? {
        members.first { $0.key == key }?.value
    }

    func has(_ key: String) -> Bool { self[key] != nil }
}

func article(_ typeName: String) -> String {
    switch typeName {
    case "array", "object": return "an \(typeName)"
    case "null": return "null"
    default: return "a \(typeName)"
    }
}

func plain(_ value: Double) -> String {
    value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
}

func isFrameBased(_ text: String) -> Bool {
    text.hasSuffix("f") || text.contains(";") || text.filter { $0 == ":" }.count == 3
}

func isPrintable(_ scalar: Unicode.Scalar) -> Bool {
    // Joiners and tag characters are invisible format characters that emoji sequences need (👩‍💻, subdivision
    // flags); other format characters (bidi overrides and the like) stay refused.
    if scalar.value == 0x200C || scalar.value == 0x200D || (0xE0020...0xE007F).contains(scalar.value) { return true }
    switch scalar.properties.generalCategory {
    case .control, .format, .surrogate, .privateUse, .unassigned, .lineSeparator, .paragraphSeparator: return false
    default: return true
    }
}

func unknownAssetHint(_ id: String, among ids: [String]) -> String {
    if let close = suggestion(for: id, among: ids) { return "did you mean \"\(close)\"?" }
    if ids.isEmpty { return "declare it in assets" }
    return "declared assets: " + ids.joined(separator: ", ")
}
