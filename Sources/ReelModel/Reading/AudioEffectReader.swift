import ReelTime

/// Reads audio effects (docs/effects.md, "Audio effects"): a clip's `audioEffects`, an audio track's or an audio
/// mix input's `effects` and `output.audio.effects`. Every numeric parameter is checked against its row of
/// `AudioEffectParameter.table` and filled with its default there; a `"preset"` expands to its chain.
struct AudioEffectReader: FieldReader {
    let sink: DiagnosticSink
    let context: ReadingContext

    /// An array of audio effect objects; nil after reporting every problem found.
    func readAudioEffects(_ json: JSON, _ path: JSONPath) -> [AudioEffect]? {
        guard let elements = array(json, path, expected: "an array of audio effects") else { return nil }
        var effects: [AudioEffect] = []
        var valid = true
        for (element, elementPath) in elements {
            if let read = effect(element, elementPath) { effects += read } else { valid = false }
        }
        return valid ? effects : nil
    }

    /// One effect object: one effect, or a preset's several.
    private func effect(_ json: JSON, _ path: JSONPath) -> [AudioEffect]? {
        guard let fields = object(json, path, .audioEffect, expected: "an audio effect object {\"type\", …}") else { return nil }
        let (timeRange, timeIsValid) = effectTimeRange(fields, path)
        if let presetJSON = fields["preset"] {
            var valid = timeIsValid
            for member in fields.members where !["preset", "start", "duration"].contains(member.key) {
                error(path.key(member.key), "\"\(member.key)\" does not go with \"preset\"",
                      hint: "a preset takes only start and duration; write the chain's effects one by one to change them")
                valid = false
            }
            guard let preset: AudioEffectPreset = enumeration(presetJSON, path.key("preset"), "audio preset"), valid
            else { return nil }
            return preset.chain.map { AudioEffect(owner: $0.owner, values: $0.values, timeRange: timeRange, path: path) }
        }
        let known = AudioEffectType.allCases.map(\.rawValue)
        guard let typeJSON = fields["type"] else {
            error(path, "an audio effect needs \"type\" (or \"preset\")", hint: "known types: " + known.joined(separator: ", "))
            return nil
        }
        guard case .string(let typeText) = typeJSON.value else {
            typeError(typeJSON, path.key("type"), expected: "an audio effect type (\(known.joined(separator: ", ")))")
            return nil
        }
        guard let type = AudioEffectType(rawValue: typeText) else {
            let close = suggestion(for: typeText, among: known).map { "did you mean \"\($0)\"? " } ?? ""
            error(path.key("type"), "unknown audio effect type \"\(typeText)\"", hint: close + "known types: " + known.joined(separator: ", "))
            return nil
        }
        var valid = timeIsValid
        var model: DenoiseModel?
        if type == .denoise, let json = fields["model"] {
            guard let written: DenoiseModel = enumeration(json, path.key("model"), "denoise model") else { return nil }
            model = written
        }
        let own = AudioEffectParameter.keys(of: type, model: model)
        for member in fields.members where !["type", "start", "duration"].contains(member.key) && !own.contains(member.key) {
            let close = suggestion(for: member.key, among: own).map { "did you mean \"\($0)\"? " } ?? ""
            let what = withArticle(type == .denoise ? AudioParameterOwner.denoise(model ?? .fft).name : type.rawValue) + " effect"
            error(path.key(member.key), "\"\(member.key)\" does not apply to \(what)",
                  hint: close + "it takes " + (own + ["start", "duration"]).joined(separator: ", "))
            valid = false
        }
        let owner: AudioParameterOwner = type == .denoise ? .denoise(model ?? .fft) : .effect(type)
        let (values, keys) = parameters(owner, fields, path, valid: &valid)
        var effect = AudioEffect(owner: owner, values: values, timeRange: timeRange, path: path)
        effect.keys = keys
        if let slope = values["slope"], slope != 12, slope != 24 {
            error(path.key("slope"), "slope \(plain(slope)) is neither 12 nor 24", hint: "write 12 (dB per octave) or 24")
            valid = false
        }
        switch type {
        case .eq:
            if let json = fields["bands"] {
                if let bands = bands(json, path.key("bands")) { effect.bands = bands } else { valid = false }
            } else {
                error(path, "an eq effect needs \"bands\"", hint: "add \"bands\": [{\"type\": \"peak\", \"frequency\": 3000, \"gain\": 3}]")
                valid = false
            }
        case .denoise where model == .rnn:
            if let json = fields["modelFile"] {
                if let file = filePath(json, path.key("modelFile")) { effect.modelFile = file } else { valid = false }
            } else {
                error(path, "an rnn denoise needs \"modelFile\", an rnnoise model file",
                      hint: "add \"modelFile\": \"models/voice.rnnn\"")
                valid = false
            }
        case .denoise:
            if let json = fields["learnFrom"] {
                if let stretch = learnFrom(json, path.key("learnFrom")) { effect.learnFrom = stretch } else { valid = false }
            }
        default:
            break
        }
        return valid ? [effect] : nil
    }

    /// `denoise`'s `learnFrom`: `[start, end]`, at least `AudioEffect.shortestLearning` long.
    private func learnFrom(_ json: JSON, _ path: JSONPath) -> TimeRange? {
        let expected = "[start, end]: the stretch of noise alone the profile is learned from"
        guard let elements = array(json, path, expected: expected) else { return nil }
        guard elements.count == 2 else {
            error(path, "learnFrom needs two times, [start, end]; found \(elements.count)", hint: "write e.g. [0, 0.8]: a stretch with noise and no speech")
            return nil
        }
        guard let start = instant(elements[0].0, elements[0].1), let end = instant(elements[1].0, elements[1].1) else { return nil }
        guard let stretch = try? TimeRange(start: start, end: end), stretch.duration >= AudioEffect.shortestLearning else {
            error(path.index(1), "learnFrom must end at least 0.1 s after it starts",
                  hint: "afftdn learns from whole 50 ms windows inside the stretch; name a longer stretch of noise alone")
            return nil
        }
        return stretch
    }

    /// `eq`'s `bands`: at least one `{type, frequency, gain, q}`.
    private func bands(_ json: JSON, _ path: JSONPath) -> [EQBand]? {
        guard let elements = array(json, path, expected: "an array of bands") else { return nil }
        guard !elements.isEmpty else {
            error(path, "an eq effect needs at least one band", hint: "add {\"type\": \"peak\", \"frequency\": 3000, \"gain\": 3}")
            return nil
        }
        var bands: [EQBand] = []
        var valid = true
        for (element, bandPath) in elements {
            guard let fields = object(element, bandPath, .eqBand, expected: "a band {\"type\", \"frequency\", \"gain\", \"q\"}"),
                  let typeJSON = fields["type"], let type: EQBandType = enumeration(typeJSON, bandPath.key("type"), "band type")
            else {
                valid = false
                continue
            }
            let (values, keys) = parameters(.band(type), fields, bandPath, valid: &valid)
            bands.append(EQBand(type: type, values: values, keys: keys))
        }
        return valid ? bands : nil
    }

    /// Every numeric parameter of `owner` written in `fields`, checked against its row, the required ones reported
    /// when missing, and the keyed ones (a key list where the row is animatable, docs/effects.md, "Keyed audio
    /// parameters"): their keys, and in `values` their first key's value.
    private func parameters(_ owner: AudioParameterOwner, _ fields: Fields, _ path: JSONPath,
                            valid: inout Bool) -> (values: [String: Double], keys: [String: KeyList<Double>]) {
        var values: [String: Double] = [:]
        var keys: [String: KeyList<Double>] = [:]
        for row in AudioEffectParameter.rows(owner) {
            let keyPath = path.key(row.key)
            guard let json = fields[row.key] else {
                if let value = row.defaultValue {
                    values[row.key] = value
                } else {
                    error(path, "\(withArticle(owner.name)) needs \"\(row.key)\"", hint: "add \"\(row.key)\": \(row.meaning) in \(row.unit)")
                    valid = false
                }
                continue
            }
            guard case .array = json.value else {
                if let value = number(row, json, keyPath) { values[row.key] = value } else { valid = false }
                continue
            }
            if case .fixed(let reason) = row.keying {
                error(keyPath, "\(owner.name)'s \(row.key) cannot be keyed", hint: reason)
                valid = false
                continue
            }
            guard let list = animatedKeys(json, keyPath, value: { json, keyPath in self.number(row, json, keyPath) }),
                  let first = list.keys.first?.values.first else {
                valid = false
                continue
            }
            keys[row.key] = list
            values[row.key] = first
        }
        return (values, keys)
    }

    /// A number within `row`'s range.
    private func number(_ row: AudioEffectParameter, _ json: JSON, _ path: JSONPath) -> Double? {
        guard case .number(let text) = json.value else {
            typeError(json, path, expected: "a number" + (row.unit.isEmpty ? "" : " in \(row.unit)"))
            return nil
        }
        guard let value = Double(text), value.isFinite, row.range.contains(value) else {
            let unit = row.unit.isEmpty ? "" : " \(row.unit)"
            error(path, "\(row.key) \(text) is outside \(plain(row.range.lowerBound))…\(plain(row.range.upperBound))\(unit)",
                  hint: "\(row.owner.name)'s \(row.key) is \(row.meaning), from \(plain(row.range.lowerBound)) to \(plain(row.range.upperBound))\(unit)")
            return nil
        }
        return value
    }
}

/// "a limiter", "an eq band (peak)".
private func withArticle(_ name: String) -> String {
    ("aeiou".contains(name.first ?? "x") ? "an " : "a ") + name
}
