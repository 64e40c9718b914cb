import Testing
import ReelModel
import ReelTime

/// Speed ramps and time maps (issue 39, point 1): the reader's keys and errors with their JSON paths, the exact
/// integral and length, and the explicit segments the compiler cuts at every output frame.
@Suite struct SpeedRampTests {
    /// "a": 10 s, 30 fps, 64×36 with sound.
    static let facts: [String: MediaFactsResult] = ["a": videoFacts(duration: t(10), width: 64, height: 36)]

    func project(_ clips: String) -> String {
        """
        {"reel": 1, "output": {"path": "o.mov", "size": [64, 36], "frameRate": 30},
         "assets": {"a": {"path": "a.mov"}},
         "timeline": {"clips": [\(clips)]}}
        """
    }

    func ramp(_ keys: [(Time, Rational, Easing)], kind: SpeedRamp.Kind = .rates) -> SpeedRamp {
        SpeedRamp(kind: kind, keys: keys.map { SpeedRamp.Key(time: $0.0, value: $0.1, easing: $0.2, path: .root) }, path: .root)
    }

    @Test func aLinearRampIntegratesExactly() throws {
        // Rate 1 → 3 over [0, 1], then 3: source(t) = t + t² on [0, 1], 2 + 3(t − 1) after.
        let r = ramp([(.zero, Rational(1), .linear), (t(1), Rational(3), .linear)])
        #expect(r.sourceOffset(at: t(1, 2)) == t(3, 4))
        #expect(r.sourceOffset(at: t(1, 3)) == t(4, 9))
        #expect(r.sourceOffset(at: t(1)) == t(2))
        #expect(r.sourceOffset(at: t(2)) == t(5))
        // Length for 4 s of source: 1 + 2/3; for 3/4: t + t² = 3/4 at t = 1/2 (a rational root).
        #expect(r.outputLength(forSource: t(4)) == t(5, 3))
        #expect(r.outputLength(forSource: t(3, 4)) == t(1, 2))
        // An irrational root, t = (√5 − 1)/2 for source 1: rounded up on the grid of 1/1411200000 s.
        let irrational = try #require(r.outputLength(forSource: t(1)))
        #expect(irrational.timescale <= SpeedRamp.grid && SpeedRamp.grid % irrational.timescale == 0)
        #expect(irrational.seconds >= (5.0.squareRoot() - 1) / 2 && irrational.seconds - (5.0.squareRoot() - 1) / 2 < 2e-9)
    }

    @Test func holdAndStepsAreExactAndBezierIsWithinANanosecond() {
        let held = ramp([(.zero, Rational(1), .linear), (t(2), Rational(4), .hold)])
        #expect(held.sourceOffset(at: t(3, 2)) == t(3, 2))
        #expect(held.sourceOffset(at: t(3)) == t(6))
        // steps(2): rate 1 over [0, 1), 2.5 over [1, 2) (jump-end: 1 + (4 − 1)·{0, 1/2}), then 4.
        let stepped = ramp([(.zero, Rational(1), .linear), (t(2), Rational(4), .steps(2, .end))])
        #expect(stepped.sourceOffset(at: t(3, 2)) == t(9, 4))
        // easeInOut is symmetric: over the whole stretch the rate averages the two values.
        let eased = ramp([(.zero, Rational(1, 2), .linear), (t(3, 2), Rational(2), .easeInOut)])
        #expect(abs(eased.sourceOffset(at: t(3, 2)).seconds - 1.875) < 1e-9)
        // Against Simpson's rule on the rate itself.
        let curve = Easing.easeInOut
        for x in [0.1, 0.37, 0.5, 0.81, 1.2] {
            let n = 20_000, h = min(x, 1.5) / Double(n)
            func rate(_ s: Double) -> Double { 0.5 + 1.5 * curve.fraction(s / 1.5) }
            var sum = rate(0) + rate(min(x, 1.5))
            for k in 1..<n { sum += rate(Double(k) * h) * (k % 2 == 1 ? 4 : 2) }
            let expected = sum * h / 3 + max(0, x - 1.5) * 2
            let got = eased.sourceOffset(at: Time(value: Int64(x * 1000), timescale: 1000)).seconds
            #expect(abs(got - expected) < 1e-8, "at \(x): \(got) vs \(expected)")
        }
    }

    @Test func aTimeMapInterpolatesSourceTimes() {
        let map = ramp([(.zero, Rational(2), .linear), (t(1), Rational(5, 2), .linear), (t(2), Rational(9, 2), .linear)], kind: .map)
        #expect(map.sourceOffset(at: t(1, 2)) == t(1, 4))
        #expect(map.sourceOffset(at: t(3, 2)) == t(3, 2))
        // After the last key the last rate (2) holds.
        #expect(map.sourceOffset(at: t(3)) == t(9, 2))
        #expect(map.outputLength(forSource: t(4)) == t(11, 4))
    }

    @Test func aRampedClipCompilesToSegmentsCutAtEveryFrame() throws {
        let (compiled, diagnostics) = compileProject(project(#"""
            {"asset": "a", "out": 4, "speed": [{"time": 0, "value": 1}, {"time": 1, "value": 3}], "pitch": "varispeed"},
            {"asset": "a", "in": 5, "out": 6}
            """#), facts: Self.facts)
        #expect(diagnostics.map(\.humanText) == [])
        let project = try #require(compiled)
        let video = try #require(project.composition.track(1)), audio = try #require(project.composition.track(2))
        // 30 one-frame pieces over the ramp, one at rate 3 after it, then the second clip.
        #expect(video.segments.count == 32)
        #expect(video.segments[0].source == range(.zero, t(31, 900)))
        #expect(video.segments[0].target == range(.zero, t(1, 30)))
        for (n, segment) in video.segments.prefix(30).enumerated() {
            let s = Time(Rational(Int64(n), 30)), e = Time(Rational(Int64(n + 1), 30))
            let offset = { (x: Time) in try x + x.multiplied(by: x.rational) }
            #expect(segment.source == range(try offset(s), try offset(e)))
        }
        #expect(video.segments[30].source == range(t(2), t(4)))
        #expect(video.segments[30].target == range(t(1), t(5, 3)))
        #expect(video.segments[31].target == range(t(5, 3), t(8, 3)))
        // The sound is cut finer and keeps the pitch setting; it covers the same source.
        #expect(audio.segments.count > video.segments.count)
        #expect(audio.segments.allSatisfy { $0.pitch == .varispeed || $0.source == range(t(5), t(6)) })
        #expect(audio.segments.first?.source?.start == .zero)
        #expect(audio.segments[audio.segments.count - 2].source?.end == t(4))
    }

    @Test func aReversedRampRunsBackFromOut() throws {
        let (compiled, diagnostics) = compileProject(project(#"""
            {"asset": "a", "in": 1, "out": 3, "reverse": true, "speed": [{"time": 0, "value": 1}, {"time": 1, "value": 3}]}
            """#), facts: Self.facts)
        #expect(diagnostics.map(\.humanText) == [])
        let project = try #require(compiled)
        let video = try #require(project.composition.track(1))
        #expect(video.segments.allSatisfy { $0.timing == .reversed })
        #expect(try video.segments[0].mapping?.sourceTime(atTarget: .zero) == t(3))
        // At output 1/2 the source has advanced 3/4: 3 − 3/4.
        let half = try #require(video.segments.first { $0.target.contains(t(1, 2)) })
        #expect(try half.mapping?.sourceTime(atTarget: t(1, 2)) == t(9, 4))
        #expect(video.segments.last?.target.end == t(1))
    }

    @Test func badKeysAreReportedAtTheirPaths() {
        let errors = readErrors(project(#"""
            {"asset": "a", "speed": [{"time": 1, "value": 1}, {"time": 2, "value": 0}]},
            {"asset": "a", "speed": [{"time": 0, "value": 1, "easing": "easeIn"}, {"time": 2, "value": 2}, {"time": 2, "value": 3}]},
            {"asset": "a", "timeMap": [{"time": 0, "value": 1}, {"time": 1, "value": 1}]},
            {"asset": "a", "timeMap": [{"time": 0, "value": 1}, {"time": 1, "value": 2, "easing": "hold"}], "in": 0},
            {"asset": "a", "speed": 2, "timeMap": [{"time": 0, "value": 1}, {"time": 1, "value": 2}]},
            {"asset": "a", "speed": [{"time": 0, "value": 1}, {"time": 1, "value": 2, "easing": "cubic-bezier(0.3, -0.4, 0.7, 1.4)"}]},
            {"asset": "a", "speed": [], "audioTail": 1},
            {"asset": "a", "freezeAt": 1, "duration": 1, "timeMap": [{"time": 0, "value": 1}, {"time": 1, "value": 2}]},
            {"asset": "a", "speed": [{"at": 0, "value": 1}]}
            """#))
        let expected = [
            "$.timeline.clips[0].speed[0].time: the first key is at 1 s (frame 30), not 0",
            "$.timeline.clips[0].speed[1].value: speed 0 is outside 0.01…100",
            "$.timeline.clips[1].speed[0].easing: the first key has no key before it to ease from",
            "$.timeline.clips[1].speed[2].time: key times must increase",
            "$.timeline.clips[2].timeMap[1].value: time map values must increase",
            "$.timeline.clips[3].timeMap[1].easing: a time map cannot jump (\"hold\")",
            "$.timeline.clips[4].timeMap: \"timeMap\" and \"speed\" are both given",
            "$.timeline.clips[5].speed[1].easing: easing \"cubic-bezier(0.3, -0.4, 0.7, 1.4)\" overshoots",
            "$.timeline.clips[6].speed: the key list is empty",
            "$.timeline.clips[7].freezeAt: \"freezeAt\" cannot be combined with \"timeMap\"",
            "$.timeline.clips[8].speed[0].at: unknown key \"at\"",
        ]
        for line in expected {
            #expect(errors.contains { $0.contains(line) }, "missing \(line) in \(errors)")
        }
    }

    @Test func aTimeMapSetsInAndRefusesAnotherOne() throws {
        let errors = readErrors(project(#"""
            {"asset": "a", "in": 2, "timeMap": [{"time": 0, "value": 1}, {"time": 1, "value": 2}]}
            """#))
        #expect(errors.contains { $0.contains("$.timeline.clips[0].in: in 2 s (frame 60) differs from the time map's first source time 1 s") }, "\(errors)")
        let (compiled, diagnostics) = compileProject(project(#"""
            {"asset": "a", "out": 3, "timeMap": [{"time": 0, "value": 1}, {"time": 1, "value": 2}]}
            """#), facts: Self.facts)
        #expect(diagnostics.map(\.humanText) == [])
        let project = try #require(compiled)
        let video = try #require(project.composition.track(1))
        #expect(video.segments.map(\.source) == [range(t(1), t(3))])
        #expect(video.segments.map(\.target) == [range(.zero, t(2))])
    }

    @Test func aMapSteeperThanAHundredIsRefused() {
        let (_, diagnostics) = compileProject(project(#"""
            {"asset": "a", "out": 9, "timeMap": [{"time": 0, "value": 0}, {"time": 0.05, "value": 8}]}
            """#), facts: Self.facts)
        #expect(diagnostics.contains { $0.humanText.contains("$.timeline.clips[0].timeMap: the clip plays at rate 160") }, "\(diagnostics.map(\.humanText))")
    }

    @Test func soundIsCutAtAMapsKeysAndTheRateAfterItsLastKeyIsExact() throws {
        // The map's rate jumps from 1/2 to 0 at a key off the frames' grid (1.01 s): the sound's pieces are cut there,
        // so that no chord spans the kink (it strayed by |jump|·h/4, several samples).
        let (compiled, diagnostics) = compileProject(project(#"""
            {"asset": "a", "out": 6, "pitch": "varispeed",
             "timeMap": [{"time": 0, "value": 2}, {"time": 1.01, "value": 2.505}, {"time": 2.01, "value": 4.505, "easing": "easeIn"}]}
            """#), facts: Self.facts)
        #expect(diagnostics.map(\.humanText) == [])
        let project = try #require(compiled)
        let audio = try #require(project.composition.track(2)), video = try #require(project.composition.track(1))
        #expect(audio.segments.contains { $0.target.start == t(101, 100) })
        #expect(audio.segments.contains { $0.target.start == t(201, 100) })
        #expect(!video.segments.contains { $0.target.start == t(101, 100) })
        // After the last key (easeIn arrives with x′(1) = y′(1) = 0) the source runs on at the curve's end slope,
        // dy/dx = y″/x″ = 1/0.58, times the stretch's 2 s/s.
        let map = ramp([(.zero, Rational(2), .linear), (t(1), Rational(5, 2), .linear), (t(2), Rational(9, 2), .easeIn)], kind: .map)
        let tail = try map.sourceOffset(at: t(3)) - map.sourceOffset(at: t(2))
        #expect(abs(tail.seconds - 2 / 0.58) < 1e-8, "\(tail.seconds)")
    }
}
