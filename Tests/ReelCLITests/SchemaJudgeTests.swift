import Foundation
import ReelModel
import ReelTestSupport
import Testing

/// The project schema (`reel schema`, ProjectSchema.document) judged by another implementation of JSON Schema
/// draft 2020-12, Python's `jsonschema`: the valid documents pass and the invalid ones fail where they are wrong.
/// End-to-end: it starts python3 (the schema's own shape is checked in ReelModelTests' SchemaTests).
@Suite("reel schema judged by python jsonschema")
struct SchemaJudgeTests {
    @Test(.enabled(if: PythonJSONSchema.isAvailable,
                   "needs python3 with the jsonschema package (pip install jsonschema); skipped where it is missing"))
    func validDocumentsPass() throws {
        let demo = try String(contentsOfFile: examplesFolder + "/demo.json", encoding: .utf8)
        let documents = schemaValidDocuments + [("examples/demo.json", demo)]
        let results = try PythonJSONSchema.validate(documents.map(\.text))
        for (document, errors) in zip(documents, results) {
            #expect(errors == [], "\(document.name) should be valid")
        }
    }

    @Test(.enabled(if: PythonJSONSchema.isAvailable,
                   "needs python3 with the jsonschema package (pip install jsonschema); skipped where it is missing"))
    func invalidDocumentsFailAtTheirFault() throws {
        let results = try PythonJSONSchema.validate(schemaInvalidDocuments.map(\.text))
        for (document, errors) in zip(schemaInvalidDocuments, results) {
            #expect(errors.contains { $0.hasPrefix(document.faultPath) },
                    "\(document.name) should fail at \(document.faultPath), got \(errors)")
        }
    }
}

// MARK: Documents

/// The folder of the repository's example projects.
private let examplesFolder = Workplace.repository.appendingPathComponent("examples").path

private let schemaOutput = #"{ "path": "out/demo.mp4", "size": [1280, 720], "frameRate": 30 }"#
private let schemaAssets = #"""
    { "cat": { "path": "media/cat.mov" }, "music": { "path": "media/music.m4a" },
      "beach": { "path": "media/beach.mov", "videoTrack": 0, "rotation": 90 },
      "commentary": { "path": "media/talk.wav", "language": "eng", "rotation": "auto" },
      "logo": { "image": "media/logo.png" }, "red": { "color": "#FF000080" } }
    """#

private func schemaEditing(_ timeline: String) -> String {
    #"{ "reel": 1, "output": \#(schemaOutput), "assets": \#(schemaAssets), "timeline": \#(timeline) }"#
}

private func schemaExplicit(_ members: String) -> String {
    #"{ "reel": 1, "output": \#(schemaOutput), "assets": \#(schemaAssets), \#(members) }"#
}

private let schemaComposition = #"""
    "composition": { "tracks": [
      { "id": 1, "type": "video", "segments": [
          { "asset": "cat", "source": { "start": 2, "duration": 8 }, "target": { "start": 0, "duration": 8 } },
          { "empty": { "start": 8, "duration": 6 } } ] },
      { "id": 2, "type": "audio", "name": "main", "segments": [
          { "asset": "cat", "sourceTrack": 1, "source": { "start": 2, "end": 10 },
            "target": { "start": 0, "duration": "240f" }, "pitch": "varispeed" } ] },
      { "id": 3, "type": "video", "segments": [
          { "asset": "beach", "source": { "start": "00:00:05:00", "duration": 14 }, "target": { "start": 7, "end": 21 } } ] } ] }
    """#

private let schemaVideoComposition = #"""
    "videoComposition": {
      "frameDuration": "1/30", "renderSize": [1280, 720], "renderScale": 1, "background": "#000000",
      "compositor": "builtIn",
      "instructions": [
        { "start": 0, "duration": 7, "layers": [ { "track": 1 } ] },
        { "start": 7, "duration": 1, "layers": [
            { "track": 1, "opacity": [ { "start": 7, "duration": 1, "from": 1, "to": 0 } ] },
            { "track": 3 } ] },
        { "start": 8, "duration": 13, "layers": [ { "track": 3 } ] } ] }
    """#

private let schemaValidDocuments: [(name: String, text: String)] = [
    ("§2 project", #"""
        { "reel": 1,
          "output":   { "path": "out/demo.mp4", "size": [1280, 720], "frameRate": 30 },
          "assets":   { "cat": { "path": "media/cat.mov" }, "music": { "path": "media/music.m4a" } },
          "timeline": { "clips": [ { "asset": "cat", "in": 2, "out": 10 } ] } }
        """#),
    ("§2.1 every output key", #"""
        { "reel": 1, "assets": {}, "timeline": { "clips": [] },
          "output": { "path": "o.webm", "format": "webm", "size": [640, 360], "frameRate": "30000/1001",
                      "renderScale": 0.5, "background": "#102030", "preset": "draft",
                      "video": { "codec": "vp9", "crf": 31, "bitrate": "5M", "encoderPreset": "good",
                                 "pixelFormat": "yuv420p", "gop": 60 },
                      "audio": { "codec": "opus", "bitrate": 128000, "sampleRate": 48000, "channels": 2 },
                      "metadata": { "title": "Demo", "comment": "" }, "range": { "start": "00:01", "end": "00:02.5" },
                      "end": "00:00:03;00", "faststart": false } }
        """#),
    ("§2.1 no audio stream", #"{ "reel": 1, "output": { "audio": false, "frameRate": 23.976 }, "timeline": { "clips": [] } }"#),
    ("§3.1 clips with a transition", schemaEditing(#"""
        { "clips": [
            { "asset": "cat", "in": 2, "out": 10, "fit": "cover", "muted": true },
            { "asset": "beach", "in": 5, "duration": 8, "speed": 1.0, "volume": 1.0,
              "transition": { "type": "dissolve", "duration": 1 } },
            { "asset": "cat", "speed": "1/2", "pitch": "varispeed", "volume": "-6dB",
              "transition": { "type": "push", "direction": "up", "duration": "12f", "audioCurve": "equalPower" } },
            { "asset": "beach", "in": "00:00:01:02", "transition": { "type": "dip", "color": "#FFFFFF", "duration": 0.5 } },
            { "gap": "1001/30000" } ] }
        """#)),
    ("§3.2 audio", schemaEditing(#"""
        { "clips": [ { "asset": "cat" } ],
          "audio": [ { "id": "music", "asset": "music", "at": 0, "in": 0, "duration": 30,
                       "volume": 0.8, "loop": true, "fadeIn": 1, "fadeOut": 2 } ] }
        """#)),
    ("§3.3 ducking", schemaEditing(#"""
        { "clips": [ { "asset": "cat" } ],
          "audio": [ { "id": "music", "asset": "music" }, { "id": "commentary", "asset": "commentary", "at": "00:00:03.5" } ],
          "ducking": [ { "duck": "music", "under": "commentary", "to": 0.2, "ramp": 0.5 },
                       { "duck": "main", "under": "commentary", "to": "-12dB", "ramp": "15f" } ] }
        """#)),
    ("§3.4 volume", schemaEditing(#"""
        { "clips": [ { "asset": "cat" } ],
          "volume": [ { "track": "main",
                        "volume": [ { "at": 0, "value": 1.0 },
                                    { "start": 10.5, "duration": 0.5, "from": 1.0, "to": 0.2 },
                                    { "start": 12, "end": 13, "from": "-14dB", "to": 0, "curve": "equalPower" } ] } ] }
        """#)),
    ("§3.5 titles and overlays", schemaEditing(#"""
        { "clips": [ { "asset": "cat" } ],
          "titles": [ { "text": "Magic", "start": 0, "duration": 10,
                        "font": "DejaVu Sans", "size": 72, "color": "#FFFFFF", "align": "center",
                        "position": [0.5, 0.5],
                        "outline": { "color": "#000000", "width": 2 },
                        "shadow": { "color": "#00000080", "offset": [3, 3], "blur": 2 },
                        "background": "#00000099", "lineSpacing": 1.2,
                        "animations": [ { "property": "opacity", "from": 1, "to": 0,
                                          "start": 9, "duration": 1, "timing": "linear" },
                                        { "property": "position", "from": [0.5, 0.5], "to": [0.5, 0.2],
                                          "start": 0, "end": 2, "timing": "easeInOut" },
                                        { "property": "scale", "from": 1, "to": [2, 1.5], "start": 0, "duration": 1 } ] },
                      { "text": "Boxed", "start": 2, "end": 4, "background": { "color": "#00000099", "padding": 12 } } ],
          "overlays": [ { "image": "logo", "size": [128, 64], "start": 0, "duration": 5, "position": [0.9, 0.1],
                          "animations": [ { "property": "rotation", "from": 0, "to": 90, "start": 1, "duration": 2,
                                            "timing": "easeOut" } ] } ] }
        """#)),
    ("§4.1 + §4.4 explicit form", schemaExplicit(schemaComposition + ", " + schemaVideoComposition)),
    ("§4.2 audioMix, several inputs per track", schemaExplicit(schemaComposition + #"""
        , "audioMix": { "inputs": [ { "track": 2, "name": "fades", "volume": [ { "at": 0, "value": "-3dB" } ] },
                                    { "track": 2, "volume": [ { "start": 1, "duration": 1, "from": 1, "to": 0,
                                                                "curve": "linear" } ] },
                                    { "track": 2 } ] }
        """# + ", " + schemaVideoComposition)),
    ("§4.3–§4.4 transform and crop keys, trackMap compositor", schemaExplicit(schemaComposition + #"""
        , "videoComposition": { "compositor": "trackMap", "instructions": [
            { "start": 0, "end": 21, "background": "#00FF00", "postProcessing": false, "layers": [
              { "track": 1,
                "transform": [ { "at": 0, "value": [1, 0, 0, 1, 0, 0] },
                               { "start": 1, "duration": 2, "from": { "translate": [10, 20], "scale": 0.5 },
                                 "to": { "translate": [0, 0], "scale": [1, 2], "rotate": 90, "anchor": [640, 360] } } ],
                "crop": [ { "at": 0, "value": [0, 0, 640, 360] },
                          { "start": 3, "duration": 1, "from": [0, 0, 640, 360], "to": [10.5, 0, 0, 360], "curve": "linear" } ],
                "opacity": [ { "at": "01:00", "value": 0.25 } ] } ] } ],
            "titles": [ { "text": "End", "start": 20, "duration": 1 } ], "overlays": [] }
        """#)),
    ("explicit form without videoComposition", schemaExplicit(schemaComposition)),
    ("layer backdrop", schemaExplicit(schemaComposition + ##"""
        , "videoComposition": { "instructions": [ { "start": 0, "duration": 21, "layers": [
            { "track": 1, "backdrop": { "color": "#10203080", "rect": [-16, 0, 64.5, 36] } } ] } ] }
        """##)),
]

private let schemaLongID = String(repeating: "a", count: 65)

private let schemaInvalidDocuments: [(name: String, text: String, faultPath: String)] = [
    ("unknown top-level key", #"{ "reel": 1, "timelime": { "clips": [] } }"#, "$"),
    ("missing version", #"{ "timeline": { "clips": [] } }"#, "$"),
    ("version 2", #"{ "reel": 2, "timeline": { "clips": [] } }"#, "$.reel"),
    ("both forms", schemaExplicit(#""timeline": { "clips": [] }, "# + schemaComposition), "$"),
    ("audioMix without composition", #"{ "reel": 1, "audioMix": { "inputs": [] } }"#, "$"),
    ("unknown clip key", schemaEditing(#"{ "clips": [ { "asset": "cat", "speeed": 2 } ] }"#), "$.timeline.clips[0]"),
    ("out and duration", schemaEditing(#"{ "clips": [ { "asset": "cat", "out": 3, "duration": 2 } ] }"#), "$.timeline.clips[0]"),
    ("seconds as a string", schemaEditing(#"{ "clips": [ { "asset": "cat", "in": "1.5" } ] }"#), "$.timeline.clips[0]"),
    ("negative time", schemaEditing(#"{ "clips": [ { "asset": "cat", "in": -1 } ] }"#), "$.timeline.clips[0]"),
    ("zero gap", schemaEditing(#"{ "clips": [ { "gap": 0 } ] }"#), "$.timeline.clips[0]"),
    ("zero frames", schemaEditing(#"{ "clips": [ { "gap": "0f" } ] }"#), "$.timeline.clips[0]"),
    ("five-field timecode", schemaEditing(#"{ "clips": [ { "asset": "cat", "in": "01:02:03:04:05" } ] }"#), "$.timeline.clips[0]"),
    ("clock minutes 60", schemaEditing(#"{ "clips": [ { "asset": "cat", "in": "60:00" } ] }"#), "$.timeline.clips[0]"),
    ("gain above 4", schemaEditing(#"{ "clips": [ { "asset": "cat", "volume": 5 } ] }"#), "$.timeline.clips[0]"),
    ("gain above +12 dB", schemaEditing(#"{ "clips": [ { "asset": "cat", "volume": "+13dB" } ] }"#), "$.timeline.clips[0]"),
    ("speed 0", schemaEditing(#"{ "clips": [ { "asset": "cat", "speed": 0 } ] }"#), "$.timeline.clips[0]"),
    ("speed 101", schemaEditing(#"{ "clips": [ { "asset": "cat", "speed": 101 } ] }"#), "$.timeline.clips[0]"),
    ("unknown transition", schemaEditing(#"{ "clips": [ { "asset": "cat", "transition": { "type": "fade", "duration": 1 } } ] }"#),
     "$.timeline.clips[0]"),
    ("direction on a dissolve", schemaEditing(#"""
        { "clips": [ { "asset": "cat", "transition": { "type": "dissolve", "direction": "left", "duration": 1 } } ] }
        """#), "$.timeline.clips[0]"),
    ("audio track named main", schemaEditing(#"{ "clips": [], "audio": [ { "id": "main", "asset": "music" } ] }"#),
     "$.timeline.audio[0].id"),
    ("short colour", ##"{ "reel": 1, "output": { "background": "#12345" }, "timeline": { "clips": [] } }"##,
     "$.output.background"),
    ("frame rate 241", #"{ "reel": 1, "output": { "frameRate": 241 }, "timeline": { "clips": [] } }"#, "$.output.frameRate"),
    ("odd preset", #"{ "reel": 1, "output": { "preset": "ultra" }, "timeline": { "clips": [] } }"#, "$.output.preset"),
    ("asset with path and image", #"{ "reel": 1, "assets": { "a": { "path": "a.mov", "image": "a.png" } }, "timeline": {} }"#,
     "$.assets.a"),
    ("65-character asset id", #"{ "reel": 1, "assets": { "\#(schemaLongID)": { "path": "a.mov" } }, "timeline": {} }"#,
     "$.assets"),
    ("set key with a start", schemaEditing(#"""
        { "volume": [ { "track": "main", "volume": [ { "at": 0, "start": 0, "value": 1 } ] } ] }
        """#), "$.timeline.volume[0].volume[0]"),
    ("ramp without duration or end", schemaEditing(#"""
        { "volume": [ { "track": "main", "volume": [ { "start": 0, "from": 1, "to": 0 } ] } ] }
        """#), "$.timeline.volume[0].volume[0]"),
    ("unknown curve", schemaEditing(#"""
        { "volume": [ { "track": "main", "volume": [ { "start": 0, "duration": 1, "from": 1, "to": 0, "curve": "cubic" } ] } ] }
        """#), "$.timeline.volume[0].volume[0]"),
    ("segment without target", schemaExplicit(#"""
        "composition": { "tracks": [ { "id": 1, "type": "video", "segments": [
            { "asset": "cat", "source": { "start": 0, "duration": 1 } } ] } ] }
        """#), "$.composition.tracks[0].segments[0]"),
    ("track id 0", schemaExplicit(#""composition": { "tracks": [ { "id": 0, "type": "video", "segments": [] } ] }"#),
     "$.composition.tracks[0].id"),
    ("unknown compositor", schemaExplicit(schemaComposition + #", "videoComposition": { "compositor": "metal", "instructions": [] }"#),
     "$.videoComposition.compositor"),
    ("five-number matrix", schemaExplicit(schemaComposition + #"""
        , "videoComposition": { "instructions": [ { "start": 0, "duration": 21, "layers": [
            { "track": 1, "transform": [ { "at": 0, "value": [1, 0, 0, 1, 0] } ] } ] } ] }
        """#), "$.videoComposition.instructions[0].layers[0].transform[0]"),
    ("negative crop width", schemaExplicit(schemaComposition + #"""
        , "videoComposition": { "instructions": [ { "start": 0, "duration": 21, "layers": [
            { "track": 1, "crop": [ { "at": 0, "value": [0, 0, -1, 10] } ] } ] } ] }
        """#), "$.videoComposition.instructions[0].layers[0].crop[0]"),
    ("zero backdrop width", schemaExplicit(schemaComposition + ##"""
        , "videoComposition": { "instructions": [ { "start": 0, "duration": 21, "layers": [
            { "track": 1, "backdrop": { "color": "#000000", "rect": [0, 0, 0, 36] } } ] } ] }
        """##), "$.videoComposition.instructions[0].layers[0].backdrop.rect"),
    ("backdrop without colour", schemaExplicit(schemaComposition + ##"""
        , "videoComposition": { "instructions": [ { "start": 0, "duration": 21, "layers": [
            { "track": 1, "backdrop": { "rect": [0, 0, 64, 36] } } ] } ] }
        """##), "$.videoComposition.instructions[0].layers[0].backdrop"),
    ("opacity above 1", schemaExplicit(schemaComposition + #"""
        , "videoComposition": { "instructions": [ { "start": 0, "duration": 21, "layers": [
            { "track": 1, "opacity": [ { "at": 0, "value": 1.5 } ] } ] } ] }
        """#), "$.videoComposition.instructions[0].layers[0].opacity[0]"),
    ("equal-power opacity ramp", schemaExplicit(schemaComposition + #"""
        , "videoComposition": { "instructions": [ { "start": 0, "duration": 21, "layers": [
            { "track": 1, "opacity": [ { "start": 0, "duration": 1, "from": 0, "to": 1, "curve": "equalPower" } ] } ] } ] }
        """#), "$.videoComposition.instructions[0].layers[0].opacity[0]"),
    ("ducking without ramp", schemaEditing(#"""
        { "audio": [ { "id": "music", "asset": "music" } ], "ducking": [ { "duck": "music", "under": "main", "to": 0.2 } ] }
        """#), "$.timeline.ducking[0]"),
    ("instruction with duration and end", schemaExplicit(schemaComposition + #"""
        , "videoComposition": { "instructions": [ { "start": 0, "duration": 21, "end": 21 } ] }
        """#), "$.videoComposition.instructions[0]"),
    ("opacity animation to a point", schemaEditing(#"""
        { "titles": [ { "text": "x", "start": 0, "duration": 1,
                        "animations": [ { "property": "opacity", "from": 1, "to": [0, 0], "start": 0, "duration": 1 } ] } ] }
        """#), "$.timeline.titles[0].animations[0]"),
]

/// Runs Python's `jsonschema` (draft 2020-12) over documents, when it is installed.
private enum PythonJSONSchema {
    static let script = #"""
        import json, sys, jsonschema
        schema = json.load(open(sys.argv[1]))
        jsonschema.Draft202012Validator.check_schema(schema)
        validator = jsonschema.Draft202012Validator(schema)
        results = []
        for document in json.load(open(sys.argv[2])):
            errors = sorted(validator.iter_errors(document), key=lambda e: e.json_path)
            results.append([e.json_path + ": " + e.message[:200] for e in errors])
        print(json.dumps(results))
        """#

    /// Whether `python3 -c "import jsonschema"` succeeds.
    static let isAvailable: Bool = (try? run(["-c", "import jsonschema"]).status) == 0

    /// For each document, the validation errors as `"$.json.path: message"` (empty when valid).
    static func validate(_ documents: [String]) throws -> [[String]] {
        for document in documents {
            _ = try JSONParser.parse(Array(document.utf8))
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("reel-schema-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let schemaFile = folder.appendingPathComponent("schema.json")
        let documentsFile = folder.appendingPathComponent("documents.json")
        let scriptFile = folder.appendingPathComponent("validate.py")
        try ProjectSchema.document.write(to: schemaFile, atomically: true, encoding: .utf8)
        try ("[" + documents.joined(separator: ",\n") + "]").write(to: documentsFile, atomically: true, encoding: .utf8)
        try script.write(to: scriptFile, atomically: true, encoding: .utf8)
        let (status, output) = try run([scriptFile.path, schemaFile.path, documentsFile.path])
        try #require(status == 0, "python failed: \(output)")
        let parsed = try JSONParser.parse(Array(output.utf8))
        let results = try #require(parsed.value.arrayValue)
        try #require(results.count == documents.count)
        return results.map { ($0.value.arrayValue ?? []).compactMap(\.value.stringValue) }
    }

    /// Runs `python3` with arguments; returns the exit status and standard output (standard error appended).
    static func run(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let result = try ReelTestSupport.run("python3", arguments)
        return (result.status, result.stdoutText + result.stderrText)
    }
}
