import ReelModel
import ReelTime
import Testing

/// A clip's, a title's and an overlay's keys are declared once, in their tables (`ProjectSchema.clipKeys`,
/// `.titleKeys`, `.overlayKeys`, `.videoOverlayKeys`, `.shapeOverlayKeys`), and so are the keys of the objects nested
/// in them (a clip's `.transitionKeys` and `.rectangleMotionKeys`, a title's `.textOutlineKeys`, `.textShadowKeys`
/// and `.textBackgroundKeys`): the
/// shape the reader checks, the schema, docs/format.md and the limits the reader checks all come from them, as the
/// picture effects' parameters come from `PictureEffectParameter.table` (`EffectTests`).
@Suite("key tables: clips', titles' and overlays' keys declared once")
struct KeyTableTests {
    /// One object whose keys have a table: the table, its shape, a project with one such object (`KEYS` stands for
    /// more keys written in it, or for all of them in a nested object whose `members` are set) and the JSON path of
    /// that object.
    struct Object: Sendable, CustomTestStringConvertible {
        let table: [FormatKey]
        let shape: ObjectShape
        let document: String
        let path: String
        /// Keys a key needs beside it (JSON members), by key.
        var needs: [String: String] = [:]
        /// A nested object's own members (key, JSON text), written in place of `KEYS`; a key set replaces its member.
        var members: [(String, String)] = []
        /// Members a key needs changed (key → member key → JSON text), for a nested object.
        var swaps: [String: [String: String]] = [:]
        var testDescription: String { shape.name }

        /// The project with `key` set to `value` (JSON text) in the object, with what it needs; nil `key`: the object
        /// as it is.
        func project(_ key: String?, _ value: String = "") -> String {
            guard !members.isEmpty else {
                return document.replacingOccurrences(
                    of: "KEYS", with: key.map { #", "\#($0)": \#(value)"# + (needs[$0].map { ", " + $0 } ?? "") } ?? "")
            }
            let swapped = key.flatMap { swaps[$0] } ?? [:]
            var written = members.filter { $0.0 != key }.map { #""\#($0.0)": \#(swapped[$0.0] ?? $0.1)"# }
            if let key, !value.isEmpty { written.append(#""\#(key)": \#(value)"#) }
            return document.replacingOccurrences(of: "KEYS", with: written.joined(separator: ", "))
        }
    }

    static let objects = [
        Object(table: ProjectSchema.clipKeys, shape: .clip,
               document: #"{"reel": 1, "output": {"path": "o.mp4", "size": [64, 36], "frameRate": 30}, "assets": {"a": {"path": "a.mp4"}}, "timeline": {"clips": [{"asset": "a", "duration": 1KEYS}]}}"#,
               path: "$.timeline.clips[0]"),
        Object(table: ProjectSchema.titleKeys, shape: .title,
               document: #"{"reel": 1, "output": {"path": "o.mp4", "size": [64, 36], "frameRate": 30}, "assets": {"a": {"path": "a.mp4"}}, "timeline": {"clips": [{"asset": "a", "duration": 2}], "titles": [{"text": "Hi", "start": 0, "duration": 1KEYS}]}}"#,
               path: "$.timeline.titles[0]", needs: ["maxHeight": #""fit": "shrink", "maxWidth": 100"#]),
        Object(table: ProjectSchema.overlayKeys, shape: .overlay,
               document: #"{"reel": 1, "output": {"path": "o.mp4", "size": [64, 36], "frameRate": 30}, "assets": {"a": {"path": "a.mp4"}, "logo": {"image": "logo.png"}}, "timeline": {"clips": [{"asset": "a", "duration": 2}], "overlays": [{"image": "logo", "start": 0, "duration": 1KEYS}]}}"#,
               path: "$.timeline.overlays[0]"),
        Object(table: ProjectSchema.videoOverlayKeys, shape: .videoOverlay,
               document: #"{"reel": 1, "output": {"path": "o.mp4", "size": [64, 36], "frameRate": 30}, "assets": {"a": {"path": "a.mp4"}}, "timeline": {"clips": [{"asset": "a", "duration": 2}], "overlays": [{"video": "a", "start": 0, "duration": 1KEYS}]}}"#,
               path: "$.timeline.overlays[0]"),
        Object(table: ProjectSchema.shapeOverlayKeys, shape: .shapeOverlay,
               document: #"{"reel": 1, "output": {"path": "o.mp4", "size": [64, 36], "frameRate": 30}, "assets": {"a": {"path": "a.mp4"}}, "timeline": {"clips": [{"asset": "a", "duration": 2}], "overlays": [{"shape": {"type": "rectangle", "size": [10, 10]}, "start": 0, "duration": 1KEYS}]}}"#,
               path: "$.timeline.overlays[0]"),
        Object(table: ProjectSchema.transitionKeys, shape: .transition,
               document: #"{"reel": 1, "output": {"path": "o.mp4", "size": [64, 36], "frameRate": 30}, "assets": {"a": {"path": "a.mp4"}}, "timeline": {"clips": [{"asset": "a", "duration": 2}, {"asset": "a", "duration": 2, "transition": {KEYS}}]}}"#,
               path: "$.timeline.clips[1].transition", members: [("type", #""push""#), ("duration", "0.5")],
               swaps: ["color": ["type": #""dip""#]]),
        Object(table: ProjectSchema.rectangleMotionKeys, shape: .rectangleMotion,
               document: #"{"reel": 1, "output": {"path": "o.mp4", "size": [64, 36], "frameRate": 30}, "assets": {"a": {"path": "a.mp4"}}, "timeline": {"clips": [{"asset": "a", "duration": 2, "motion": {KEYS}}]}}"#,
               path: "$.timeline.clips[0].motion", members: [("from", "[0, 0, 64, 36]"), ("to", "[8, 4, 32, 18]")]),
        Object(table: ProjectSchema.textOutlineKeys, shape: .textOutline,
               document: Self.titleWith("outline"), path: "$.timeline.titles[0].outline",
               members: [("color", ##""#000000""##), ("width", "2")]),
        Object(table: ProjectSchema.textShadowKeys, shape: .textShadow,
               document: Self.titleWith("shadow"), path: "$.timeline.titles[0].shadow", members: [("color", ##""#00000080""##)]),
        Object(table: ProjectSchema.textBackgroundKeys, shape: .textBackground,
               document: Self.titleWith("background"), path: "$.timeline.titles[0].background",
               members: [("color", ##""#00000099""##)]),
    ]

    /// A project with a title whose `key` is an object of members `KEYS`.
    static func titleWith(_ key: String) -> String {
        #"{"reel": 1, "output": {"path": "o.mp4", "size": [64, 36], "frameRate": 30}, "assets": {"a": {"path": "a.mp4"}}, "timeline": {"clips": [{"asset": "a", "duration": 2}], "titles": [{"text": "Hi", "start": 0, "duration": 1, "\#(key)": {KEYS}}]}}"#
    }

    static let facts: [String: MediaFactsResult] = [
        "a": videoFacts(duration: t(4), width: 64, height: 36),
        "logo": videoFacts(duration: t(1), width: 32, height: 32, audio: false),
    ]

    /// Every row of the table: a number at either end of its limits is read, one beyond them (and the lower bound
    /// when it is excluded) refused with the row's hint at the key's path; a default written is read and compiled as
    /// its absence is; the shape's keys and required keys are the table's.
    @Test(arguments: objects)
    func theKeyTableIsTheOneDeclaration(_ object: Object) throws {
        #expect(readErrors(object.project(nil)) == [], "the bare \(object.shape.name) is read")
        for row in object.table {
            guard let limits = row.limits else { continue }
            let low = limits.range.lowerBound, high = limits.range.upperBound
            let lowest = limits.excludesLowerBound ? low + min(0.5, (high - low) / 2) : low
            for value in [lowest, high] {
                #expect(readErrors(object.project(row.name, plain(value))) == [], "\(row.name) = \(plain(value)) is read")
            }
            var refused = [high + max(1, abs(high))]
            if limits.excludesLowerBound { refused.append(low) }
            for value in refused {
                let diagnostics = readProject(object.project(row.name, plain(value))).diagnostics
                #expect(diagnostics.map { "\($0.path)" } == ["\(object.path).\(row.name)"], "\(row.name) = \(plain(value))")
                #expect(diagnostics.map(\.hint) == [limits.hint], "\(row.name) = \(plain(value)): the row's hint")
            }
        }
        for row in object.table {
            guard case .value(let value) = row.defaultValue else { continue }
            // Without the key, but with what it needs (a nested object's swapped members).
            let absent = try #require(compileProject(object.project(object.members.isEmpty ? nil : row.name), facts: Self.facts)
                .compiled.map(Self.fontNamedOnlyWhenNotTheDefault))
            let written = compileProject(object.project(row.name, JSONWriter.write(value, pretty: false)), facts: Self.facts)
            #expect(written.diagnostics.map(\.humanText) == [], "\(row.name): its default is read")
            #expect(written.compiled.map(Self.fontNamedOnlyWhenNotTheDefault) == absent,
                    "\(row.name): its default \(JSONWriter.write(value, pretty: false)) is what holds without it")
        }
        #expect(Set(object.shape.allowed) == Set(object.table.map(\.name)) && object.shape.allowed.count == object.table.count)
        #expect(object.shape.required == object.table.filter { $0.defaultValue == .required }.map(\.name))
    }

    /// The "allowed keys" hint under an unknown key keeps its order, which differs from the reference's where keys
    /// were added later (`FormatKey.listedLast`).
    @Test func theAllowedKeysHintKeepsItsOrder() {
        #expect(ObjectShape.clip.allowed == [
            "asset", "in", "out", "duration", "speed", "volume", "muted", "fit", "pitch", "transition", "audioLead",
            "audioTail", "position", "scale", "rotation", "crop", "animations", "captions", "effects", "cornerRadius",
            "mask", "audioEffects", "freezeAt", "reverse", "motion", "chapters", "timeMap", "label",
        ])
        #expect(ObjectShape.title.allowed == [
            "text", "font", "size", "color", "align", "outline", "shadow", "background", "lineSpacing", "weight", "style",
            "stretch", "anchor", "maxWidth", "maxHeight", "fit", "start", "duration", "end", "position", "animations",
        ])
        #expect(ObjectShape.overlay.allowed == [
            "image", "size", "start", "duration", "end", "position", "animations", "effects", "cornerRadius", "mask",
        ])
        #expect(ObjectShape.videoOverlay.allowed == [
            "video", "in", "out", "duration", "speed", "volume", "muted", "start", "size", "position", "animations",
            "effects", "audioEffects", "cornerRadius", "mask",
        ])
        #expect(ObjectShape.shapeOverlay.allowed == ["shape", "start", "duration", "end", "position", "animations"])
        #expect([ObjectShape.clip, .title, .overlay, .videoOverlay, .shapeOverlay].map(\.required)
            == [["asset"], ["text", "start"], ["image", "start"], ["video", "start"], ["shape", "start"]])
        #expect([ObjectShape.transition, .rectangleMotion, .textOutline, .textShadow, .textBackground].map(\.allowed) == [
            ["type", "duration", "direction", "color", "audioCurve"], ["from", "to", "timing"], ["color", "width"],
            ["color", "offset", "blur"], ["color", "padding"],
        ])
        #expect([ObjectShape.transition, .rectangleMotion, .textOutline, .textShadow, .textBackground].map(\.required)
            == [["type", "duration"], ["from", "to"], ["color", "width"], ["color"], ["color"]])
        #expect(ProjectSchema.clipKeys.contains { $0.limits != nil } && ProjectSchema.titleKeys.contains { $0.limits != nil })
    }

    /// `project` with a title's font that is `TextStyle.defaultFont` left out, as the model keeps a font not
    /// written (nil: the default font).
    private static func fontNamedOnlyWhenNotTheDefault(_ project: CompiledProject) -> CompiledProject {
        var project = project
        for index in project.videoComposition.titles.indices {
            if case .text(var style) = project.videoComposition.titles[index].content, style.font == TextStyle.defaultFont {
                style.font = nil
                project.videoComposition.titles[index].content = .text(style)
            }
        }
        return project
    }

    private func plain(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }
}
