import Testing
import ReelModel
import ReelTime

/// Shape overlays (issue 38 point 2, docs/format.md "Shapes"): SVG path data made absolute, shapes read with the
/// JSON path of a bad value, and written by `reel compile` and read back unchanged.
@Suite struct ShapeTests {
    static let facts: [String: MediaFactsResult] = ["a": videoFacts(duration: t(2), width: 64, height: 36)]

    func project(_ overlays: String) -> String {
        """
        {"reel": 1, "output": {"path": "o.mp4", "size": [64, 36], "frameRate": 30},
         "assets": {"a": {"path": "a.mp4"}},
         "timeline": {"clips": [{"asset": "a"}], "overlays": [\(overlays)]}}
        """
    }

    static func p(_ x: Double, _ y: Double) -> LayerPoint { LayerPoint(x: x, y: y) }

    @Test func pathDataIsMadeAbsolute() throws {
        let commands = try SVGPath.parse("M10,20 l5-5 H30 v10 h-2 V 40 Q 50 40 50 50 T 60 60 C1 2 3 4 5 6 s 1 1 2 2 z m1 1 2 2")
        #expect(commands == [
            .move(Self.p(10, 20)), .line(Self.p(15, 15)), .line(Self.p(30, 15)), .line(Self.p(30, 25)), .line(Self.p(28, 25)),
            .line(Self.p(28, 40)),
            // Q from (28, 40) through (50, 40) to (50, 50), as a cubic: controls at two thirds towards the control point.
            .curve(Self.p(28 + 2.0 / 3 * 22, 40), Self.p(50, 50 - 2.0 / 3 * 10), Self.p(50, 50)),
            // T reflects (50, 40) about (50, 50): (50, 60).
            .curve(Self.p(50, 50 + 2.0 / 3 * 10), Self.p(60 + 2.0 / 3 * -10, 60), Self.p(60, 60)),
            .curve(Self.p(1, 2), Self.p(3, 4), Self.p(5, 6)),
            // s reflects (3, 4) about (5, 6): (7, 8).
            .curve(Self.p(7, 8), Self.p(6, 7), Self.p(7, 8)),
            .close,
            // After z the pen is back at (10, 20); the pair after a move is a line.
            .move(Self.p(11, 21)), .line(Self.p(13, 23)),
        ])
    }

    @Test func arcsBecomeCurvesThroughTheirEnds() throws {
        // A half circle of radius 10 from (0, 0) to (20, 0): two quarter curves, the first ending at its top or bottom.
        let commands = try SVGPath.parse("M0 0 A10 10 0 0 1 20 0")
        #expect(commands.count == 3)
        guard case .curve(_, _, let middle) = commands[1], case .curve(_, _, let end) = commands[2] else {
            Issue.record("not curves: \(commands)")
            return
        }
        #expect(abs(middle.x - 10) < 1e-9 && abs(abs(middle.y) - 10) < 1e-9, "\(middle)")
        #expect(end == Self.p(20, 0))
        // Radii too small are scaled up: still ends at (20, 0).
        let small = try SVGPath.parse("M0 0 a1 1 0 1 0 20 0")
        guard case .curve(_, _, let last)? = small.last else {
            Issue.record("not a curve: \(small)")
            return
        }
        #expect(abs(last.x - 20) < 1e-9 && abs(last.y) < 1e-9)
    }

    static let badPaths: [(text: String, offset: Int)] = [
        ("L 0 0", 0), ("M 0", 3), ("M 0 0 X 1", 6), ("M 0 0 A 1 1 0 2 0 5 5", 14), ("M 0 0 z 1", 8),
    ]

    @Test(arguments: 0..<badPaths.count)
    func badPathDataSaysWhere(_ index: Int) {
        let (text, offset) = Self.badPaths[index]
        #expect(throws: SVGPath.ParseError.self) { try SVGPath.parse(text) }
        do {
            _ = try SVGPath.parse(text)
        } catch {
            #expect(error.offset == offset, "\(text): \(error)")
        }
    }

    @Test func shapeOverlaysAreReadAndWrittenBack() throws {
        let (compiled, diagnostics) = compileProject(project(##"""
            {"shape": {"type": "rectangle", "size": [40, 20], "cornerRadius": 4, "stroke": {"color": "#000000", "width": 2},
                       "fill": {"linear": [[0, 0], [40, 0]], "stops": [[0, "#FF0000"], [1, "#0000FF80"]]}},
             "start": 0, "duration": 1, "position": [0.25, 0.5]},
            {"shape": {"type": "polygon", "size": [10, 10], "points": [[0, 10], [5, 0], [10, 10]]}, "start": 0.5, "end": 2},
            {"shape": {"type": "path", "size": [10, 10], "path": "M0 0 L10 0 L5 10 Z", "stroke": {"color": "#FFFFFF", "width": 1}},
             "start": 0, "duration": 2}
            """##), facts: Self.facts)
        #expect(diagnostics.map(\.humanText) == [])
        let project = try #require(compiled)
        let layers = project.videoComposition.overlays
        #expect(layers.count == 3)
        guard layers.count == 3, case .shape(let rectangle) = layers[0].content, case .shape(let polygon) = layers[1].content,
            case .shape(let path) = layers[2].content else {
            Issue.record("not shapes: \(layers)")
            return
        }
        #expect(rectangle.kind == .rectangle && rectangle.cornerRadius == 4 && rectangle.stroke?.width == 2)
        #expect(rectangle.fill == .linear(from: Self.p(0, 0), to: Self.p(40, 0), stops: [
            GradientStop(offset: 0, color: RGBAColor(red: 255, green: 0, blue: 0)),
            GradientStop(offset: 1, color: RGBAColor(red: 0, green: 0, blue: 255, alpha: 128)),
        ]))
        #expect(polygon.points == [Self.p(0, 10), Self.p(5, 0), Self.p(10, 10)])
        #expect(polygon.fill == .color(RGBAColor(red: 255, green: 255, blue: 255)))
        // Only a stroke: not filled.
        #expect(path.fill == nil && path.path == "M0 0 L10 0 L5 10 Z")
        let written = ProjectWriter.explicitProject(project)
        let (again, againDiagnostics) = compileProject(written, facts: Self.facts)
        #expect(againDiagnostics.map(\.humanText) == [])
        #expect(again?.videoComposition.overlays.map(\.content) == layers.map(\.content))
    }

    @Test func aShapeBeforeAVideoOverlayStaysALayer() throws {
        let (compiled, diagnostics) = compileProject(project(#"""
            {"shape": {"type": "ellipse", "size": [10, 10]}, "start": 0, "duration": 1},
            {"video": "a", "start": 0, "size": [32, 18]}
            """#), facts: Self.facts)
        #expect(diagnostics.map(\.humanText) == [])
        #expect(compiled?.videoComposition.overlays.count == 1)
    }

    static let refusals: [(overlay: String, path: String)] = [
        (#"{"shape": {"size": [10, 10]}, "start": 0, "duration": 1}"#, "$.timeline.overlays[0].shape"),
        (#"{"shape": {"type": "ellipse"}, "start": 0, "duration": 1}"#, "$.timeline.overlays[0].shape"),
        (#"{"shape": {"type": "ellipse", "size": [10, -1]}, "start": 0, "duration": 1}"#, "$.timeline.overlays[0].shape.size[1]"),
        (#"{"shape": {"type": "ellipse", "size": [10, 10], "cornerRadius": 2}, "start": 0, "duration": 1}"#,
         "$.timeline.overlays[0].shape.cornerRadius"),
        (#"{"shape": {"type": "polygon", "size": [10, 10]}, "start": 0, "duration": 1}"#, "$.timeline.overlays[0].shape"),
        (#"{"shape": {"type": "path", "size": [10, 10], "path": "M 1 1 Q 2"}, "start": 0, "duration": 1}"#,
         "$.timeline.overlays[0].shape.path"),
        (##"{"shape": {"type": "ellipse", "size": [10, 10], "fill": {"linear": [[0, 0]], "stops": [[0, "#000000"], [1, "#FFFFFF"]]}}, "start": 0, "duration": 1}"##,
         "$.timeline.overlays[0].shape.fill.linear"),
        (##"{"shape": {"type": "ellipse", "size": [10, 10], "fill": {"linear": [[0, 0], [1, 1]], "stops": [[0, "#000000"]]}}, "start": 0, "duration": 1}"##,
         "$.timeline.overlays[0].shape.fill.stops"),
        (##"{"shape": {"type": "ellipse", "size": [10, 10], "stroke": {"color": "#000000", "width": 0}}, "start": 0, "duration": 1}"##,
         "$.timeline.overlays[0].shape.stroke.width"),
        (#"{"shape": {"type": "ellipse", "size": [10, 10]}, "start": 0, "duration": 1, "image": "a"}"#,
         "$.timeline.overlays[0].image"),
    ]

    @Test(arguments: 0..<refusals.count)
    func badShapesAreRefusedAtTheirPath(_ index: Int) {
        let (overlay, path) = Self.refusals[index]
        let errors = readProject(project(overlay)).diagnostics.filter { $0.severity == .error }
        #expect(errors.map(\.path.description).contains(path), "\(errors.map(\.humanText))")
    }
}
