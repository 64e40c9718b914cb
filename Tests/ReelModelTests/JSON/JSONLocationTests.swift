import ReelModel
import ReelTime
import Testing

/// Mapping JSON paths back to lines and columns, and the file-first message forms built on it.
@Suite struct JSONLocationTests {
    static let document = """
        { "reel": 1,
          "output": { "path": "out.mp4",
                      "size": [64, 36] },
          "timeline": { "clips": [ { "asset": "a" },
                                   { "asset": "b", "in": "x" } ] } }
        """

    @Test(arguments: [
        ("$", JSONPath.root, JSONPosition(line: 1, column: 1)),
        ("value of a key", JSONPath.root.key("output").key("path"), JSONPosition(line: 2, column: 23)),
        ("array element", JSONPath.root.key("output").key("size").index(1), JSONPosition(line: 3, column: 28)),
        ("deep", JSONPath.root.key("timeline").key("clips").index(1).key("in"), JSONPosition(line: 5, column: 50)),
        ("missing key: its object", JSONPath.root.key("timeline").key("clips").index(0).key("out"),
         JSONPosition(line: 4, column: 28)),
        ("index past the end: its array", JSONPath.root.key("timeline").key("clips").index(7),
         JSONPosition(line: 4, column: 26)),
        ("key of a number: the number", JSONPath.root.key("reel").key("x"), JSONPosition(line: 1, column: 11)),
    ] as [(String, JSONPath, JSONPosition)])
    func positions(_ name: String, _ path: JSONPath, _ expected: JSONPosition) throws {
        let document = try JSONParser.parse(Self.document)
        #expect(document.position(of: path) == expected, "\(name)")
    }

    @Test func pathsTheDocumentNeverHeldHaveNoPosition() throws {
        let document = try JSONParser.parse(Self.document)
        #expect(document.position(of: JSONPath.root.key("videoComposition").key("instructions").index(0)) == nil)
    }

    @Test func readerPlacesEveryDiagnostic() {
        let reading = ProjectReader.readDocument(Array(Self.document.utf8), baseDirectory: "/p")
        #expect(reading.hasErrors)
        #expect(reading.project != nil, "what could be read is kept")
        let placed = reading.diagnostics.map { "\($0.position?.description ?? "-") \($0.path)" }
        #expect(placed.contains("5:50 $.timeline.clips[1].in"), "\(placed)")
        // The old entry point keeps its diagnostics free of positions (equal to ones built in code).
        #expect(ProjectReader.read(Self.document, baseDirectory: "/p").diagnostics.allSatisfy { $0.position == nil })
    }

    @Test func humanTextNamesTheFileAndPlace() {
        var diagnostic = Diagnostic(path: JSONPath.root.key("timeline").key("clips").index(2).key("in"),
                                    message: "in is negative", hint: "times start at 0")
        #expect(diagnostic.humanText(file: "p.json") == "p.json: error: $.timeline.clips[2].in: in is negative\n       hint: times start at 0")
        diagnostic.position = JSONPosition(line: 12, column: 5)
        #expect(diagnostic.humanText(file: "p.json") == "p.json:12:5: error: $.timeline.clips[2].in: in is negative\n       hint: times start at 0")
        let flag = Diagnostic(path: JSONPath.root.key("output").key("range"), message: "--range 5..2: ends at 2 s",
                              category: .usage)
        #expect(flag.humanText(file: "p.json") == "error: --range 5..2: ends at 2 s")
    }

    @Test func jsonLineCarriesFileLineAndColumn() {
        var diagnostic = Diagnostic(path: .root, message: "m", time: Time(seconds: 1), frame: 30)
        #expect(diagnostic.jsonLine(file: nil)
            == #"{"severity":"error","file":null,"line":null,"column":null,"path":"$","message":"m","time":1,"frame":30,"hint":null,"project":null}"#)
        diagnostic.position = JSONPosition(line: 3, column: 7)
        #expect(diagnostic.jsonLine(file: "a b.json")
            == #"{"severity":"error","file":"a b.json","line":3,"column":7,"path":"$","message":"m","time":1,"frame":30,"hint":null,"project":"a b.json"}"#)
    }

    /// A problem in another file (a caption file's line) is placed there, in both forms; the JSON `path` stays the
    /// JSON path alone and `project` still names the project (issue 33, point 13).
    @Test func aProblemInAnotherFileIsPlacedThere() {
        var diagnostic = Diagnostic(.warning, path: JSONPath.root.key("timeline").key("captions").index(0).key("file"),
                                    message: "cue 3: no timing line", hint: "fix it")
        diagnostic.position = JSONPosition(line: 4, column: 20)
        diagnostic.origin = DiagnosticOrigin(file: "cap.srt", line: 10)
        #expect(diagnostic.humanText(file: "p.json")
            == "cap.srt:10: warning: $.timeline.captions[0].file: cue 3: no timing line\n       hint: fix it")
        #expect(diagnostic.jsonLine(file: "p.json")
            == #"{"severity":"warning","file":"cap.srt","line":10,"column":null,"path":"$.timeline.captions[0].file","message":"cue 3: no timing line","time":null,"frame":null,"hint":"fix it","project":"p.json"}"#)
        // An EDL event's diagnostic is at the root of the imported file: its line, no path.
        var event = Diagnostic(path: .root, message: "event 001: clip not found")
        event.origin = DiagnosticOrigin(file: "cut.edl", line: 4)
        #expect(event.humanText(file: "cut.edl") == "cut.edl:4: error: event 001: clip not found")
        // An OTIO file's problem keeps its JSON path inside that file.
        var otio = Diagnostic(path: JSONPath.root.key("tracks"), message: "m")
        otio.origin = DiagnosticOrigin(file: "edit.otio")
        #expect(otio.humanText(file: "edit.otio") == "edit.otio: error: $.tracks: m")
    }

    @Test func overlappingPaths() {
        let clip = JSONPath.root.key("timeline").key("clips").index(1)
        #expect(clip.overlaps(clip.key("in")))
        #expect(clip.key("in").overlaps(clip))
        #expect(clip.overlaps(clip))
        #expect(!clip.key("in").overlaps(clip.key("out")))
        #expect(!clip.overlaps(JSONPath.root.key("timeline").key("clips").index(0)))
    }
}
