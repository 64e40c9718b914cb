import Foundation
import ReelModel
import ReelTime
import Testing

/// Issue 39: one easing for every key list and animation; the cubic Bézier solved to within 10⁻⁶ of its parameter.
@Suite struct EasingTests {
    /// x(s) of a cubic Bézier, written out from its definition (not through `CubicBezier`).
    private static func bezier(_ s: Double, _ p1: Double, _ p2: Double) -> Double {
        3 * (1 - s) * (1 - s) * s * p1 + 3 * (1 - s) * s * s * p2 + s * s * s
    }

    @Test(arguments: [(0.42, 0.58), (0.0, 1.0), (1.0, 0.0), (0.25, 0.25), (0.0, 0.0), (1.0, 1.0), (0.9, 0.05)])
    func theSolvedParameterIsWithinAMillionthOfTheExactOne(x1: Double, x2: Double) {
        for i in 0...1000 {
            let x = Double(i) / 1000
            let s = CubicBezier.parameter(forX: x, x1: x1, x2: x2)
            // x(s) is increasing, so the exact parameter lies between s ∓ 10⁻⁶ when x does.
            #expect(Self.bezier(max(0, s - 1e-6), x1, x2) <= x && x <= Self.bezier(min(1, s + 1e-6), x1, x2),
                    "x1 \(x1), x2 \(x2), x \(x): s \(s)")
        }
    }

    @Test func aCurveWhoseXIsItsParameterGivesYOfX() {
        // x1 = 1/3, x2 = 2/3 make x(s) = s exactly, so f(p) = y(p): a closed form to compare with.
        let easing = Easing.cubicBezier(1.0 / 3, 0.9, 2.0 / 3, -0.4)
        for p in stride(from: 0.0, through: 1.0, by: 0.01) {
            #expect(abs(easing.fraction(p) - Self.bezier(p, 0.9, -0.4)) < 1e-9, "p \(p)")
        }
    }

    @Test func namedCurvesAreCoreAnimationsAndCSSs() {
        #expect(Easing.parse("ease-in") == .success(.easeIn) && Easing.easeIn == .cubicBezier(0.42, 0, 1, 1))
        #expect(Easing.parse("easeOut") == .success(.cubicBezier(0, 0, 0.58, 1)))
        #expect(Easing.parse("ease-in-out") == .success(.cubicBezier(0.42, 0, 0.58, 1)))
        #expect(Easing.parse("ease") == .success(.cubicBezier(0.25, 0.1, 0.25, 1)))
        #expect(Easing.parse("step-start") == .success(.steps(1, .start)))
        #expect(Easing.parse("step-end") == .success(.steps(1, .end)))
        #expect(Easing.parse("cubic-bezier(0.1, -0.5,0.9 , 1.5)") == .success(.cubicBezier(0.1, -0.5, 0.9, 1.5)))
        #expect(Easing.parse("steps(4, jump-none)") == .success(.steps(4, .none)))
        // easeInOut is symmetric: half-way at half time.
        #expect(abs(Easing.easeInOut.fraction(0.5) - 0.5) < 1e-9)
        // CSS ease at 25 % of the time (a value browsers agree on to 3 decimals): 0.4085.
        #expect(abs(Easing.ease.fraction(0.25) - 0.4085) < 1e-3)
        #expect(Easing.cubicBezier(0.3, 0.3, 0.7, 0.7).isLinear && !Easing.easeIn.isLinear)
    }

    @Test func stepsFollowCSS() {
        let end = Easing.steps(4, .end), start = Easing.steps(4, .start)
        #expect([0, 0.24, 0.25, 0.5, 0.99, 1].map { end.fraction($0) } == [0, 0, 0.25, 0.5, 0.75, 1])
        #expect([0, 0.24, 0.25, 0.99, 1].map { start.fraction($0) } == [0.25, 0.25, 0.5, 1, 1])
        #expect([0, 0.3, 0.6, 1].map { Easing.steps(3, .none).fraction($0) } == [0, 0, 0.5, 1])
        #expect([0, 0.5, 1].map { Easing.steps(1, .both).fraction($0) } == [0.5, 0.5, 1])
        #expect(Easing.hold.fraction(0.999) == 0 && Easing.hold.fraction(1) == 1)
    }

    @Test func theTextFormReadsBackAsTheSameEasing() {
        for easing in [Easing.linear, .hold, .easeIn, .easeOut, .easeInOut, .ease, .equalPower, .cubicBezier(0.1, 0.7, 1, 0.1),
                       .steps(5, .end), .steps(5, .start), .steps(2, .none), .steps(3, .both)] {
            #expect(Easing.parse(easing.text) == .success(easing), "\(easing.text)")
        }
        #expect(Easing.easeInOut.text == "easeInOut" && Easing.steps(5, .end).text == "steps(5)")
    }

    @Test func badEasingsAreRefusedWithTheirPath() {
        let errors = readErrors(project(volume: #"""
            {"at": 0, "value": 1, "easing": "easeIn"}, {"at": 1, "value": 0.5, "easing": "cubic-bezier(1.5, 0, 1, 1)"},
            {"at": 2, "value": 0.2, "easing": "steps(0)"}, {"at": 3, "value": 0.3, "easing": "bounce"},
            {"start": 4, "duration": 1, "from": 1, "to": 0, "easing": "ease-out", "curve": "linear"}
            """#, opacity: #"{"property": "opacity", "to": 0, "start": 0, "duration": 1, "easing": "equalPower"}"#))
        #expect(errors.map { $0.split(separator: "\n")[0] } == [
            "error: $.timeline.volume[0].volume[0].easing: the first key has no key before it to ease from",
            #"error: $.timeline.volume[0].volume[1].easing: easing "cubic-bezier(1.5, 0, 1, 1)": cubic-bezier's x1 and x2 must lie in [0, 1] (time only moves forward)"#,
            #"error: $.timeline.volume[0].volume[2].easing: easing "steps(0)": steps takes a whole number of steps from 1 to 100000, then optionally start or end"#,
            #"error: $.timeline.volume[0].volume[3].easing: unknown easing "bounce""#,
            #"error: $.timeline.volume[0].volume[4].curve: "curve" and "easing" are both given"#,
            #"error: $.timeline.titles[0].animations[0].easing: only volume keys may be "equalPower""#,
        ], "\(errors)")
        let first = readErrors(project(volume: #"{"at": 1, "value": 0.5, "easing": "linear"}"#))
        #expect(first.map { $0.split(separator: "\n")[0] } == [
            "error: $.timeline.volume[0].volume[0].easing: the first key has no key before it to ease from",
        ])
    }

    @Test func anEasedStepKeyIsTheRampFromThePreviousKey() throws {
        let read = readProject(project(volume: #"""
            {"at": 0, "value": 1}, {"at": 2, "value": 0.5, "easing": "easeInOut"},
            {"start": 3, "duration": 1, "from": 0.5, "to": 0.1, "easing": "steps(2)"}, {"at": 6, "value": 1, "easing": "hold"},
            {"at": 8, "value": 0, "easing": "cubic-bezier(0, 0, 1, 1)"}
            """#))
        #expect(read.diagnostics.map(\.humanText) == [])
        let keys = try #require(read.project?.timeline?.volume.first?.volume)
        #expect(keys.keys == [
            .set(at: t(0), value: 1), .ramp(range(t(0), t(2)), from: 1, to: 0.5, easing: .easeInOut),
            .ramp(range(t(3), t(4)), from: 0.5, to: 0.1, easing: .steps(2, .end)), .set(at: t(6), value: 1),
            .ramp(range(t(6), t(8)), from: 1, to: 0, easing: .cubicBezier(0, 0, 1, 1)),
        ])
        #expect(abs(keys.value(at: t(1), default: 1) - 0.75) < 1e-9, "easeInOut is half-way at half time")
        #expect(keys.value(at: t(7, 2), default: 1) == 0.3 && keys.value(at: t(15, 4), default: 1) == 0.3)
        #expect(keys.value(at: t(5), default: 1) == 0.1 && keys.value(at: t(7), default: 1) == 0.5)
    }

    @Test func compileWritesTheEasingIntoTheExplicitForm() throws {
        let (compiled, diagnostics) = compileProject(project(volume: #"""
            {"at": 0, "value": 1}, {"at": 2, "value": 0.5, "easing": "ease-in"},
            {"start": 3, "duration": 1, "from": 0.5, "to": 0.1, "easing": "cubic-bezier(0.2, 1.4, 0.6, 1)"}
            """#), facts: ["a": videoFacts(duration: t(10))])
        #expect(diagnostics.filter { $0.severity == .error }.map(\.humanText) == [])
        let written = ProjectWriter.explicitProject(try #require(compiled))
        #expect(written.contains(#""easing": "easeIn""#), "\(written)")
        #expect(written.contains(#""easing": "cubic-bezier(0.2, 1.4, 0.6, 1)""#), "\(written)")
        let reread = readProject(written)
        #expect(reread.diagnostics.map(\.humanText) == [])
        #expect(reread.project?.audioMix?.inputs.map(\.volume) == compiled?.audioMix.inputs.map(\.volume))
    }

    private func project(volume: String, opacity: String? = nil) -> String {
        """
        {"reel": 1, "output": {"path": "o.mp4", "size": [64, 36], "frameRate": 30}, "assets": {"a": {"path": "a.mp4"}},
         "timeline": {"clips": [{"asset": "a", "out": 10}],
                      "volume": [{"track": "main", "volume": [\(volume)]}]\(opacity.map { #", "titles": [{"text": "x", "start": 0, "duration": 1, "animations": [\#($0)]}]"# } ?? "")}}
        """
    }
}
