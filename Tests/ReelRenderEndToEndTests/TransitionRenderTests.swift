import Foundation
import ReelTestSupport
import Testing

/// Transitions and explicit layer ramps end to end: flat and gradient sources (lossless FFV1) rendered
/// through `reel` to lossless H.264, read back plane by plane with the ffmpeg CLI, and compared with the
/// blend, position and gain curves of SPEC §3.1 and §4.3–§4.4, frame by frame or window by window.
@Suite struct TransitionRenderTests {
    static let width = 64
    static let height = 36

    /// Luma of the gradient sources: 1 per pixel across, 4 per pixel down (16 … 219).
    static func gradient(_ x: Int, _ y: Int) -> UInt8 { UInt8(16 + x + 4 * y) }

    /// Outgoing chroma (neutral) and incoming chroma (bluish purple), told apart on the chroma planes.
    static let outgoingChroma: (u: UInt8, v: UInt8) = (128, 128)
    static let incomingChroma: (u: UInt8, v: UInt8) = (90, 170)

    // MARK: dissolve

    /// A 1 s dissolve from flat Y 60 to flat Y 200 at 30 fps: frame n of the overlap [1, 2) s is
    /// (1 − p)·60 + p·200 with p = (n/30 − 1) / 1, within ±2; before and after, the clips themselves.
    @Test func dissolveBlendsLinearlyFrameByFrame() throws {
        let folder = try TemporaryDirectory(prefix: "reel-transition-dissolve")
        try EndToEnd.makeClip(folder.file("a.mkv"), picture: .flat(y: 60), seconds: 2)
        try EndToEnd.makeClip(folder.file("b.mkv"), picture: .flat(y: 200), seconds: 2)
        let frames = try EndToEnd.renderFrames(in: folder, clips: """
            { "asset": "a", "in": 0, "out": 2 },
            { "asset": "b", "in": 0, "out": 2, "transition": { "type": "dissolve", "duration": 1 } }
            """)
        try #require(frames.count == 90, "expected 90 frames (3 s at 30 fps), got \(frames.count)")
        var failures: [String] = []
        for (n, frame) in frames.enumerated() {
            let p = min(1, max(0, (Double(n) / 30 - 1)))
            let expected = 60 * (1 - p) + 200 * p
            let (low, high) = frame.lumaRange
            if Double(low) < expected - 2 || Double(high) > expected + 2 {
                failures.append("frame \(n) (p \(String(format: "%.3f", p))): luma \(low)…\(high), expected \(String(format: "%.1f", expected))")
            }
        }
        #expect(failures.isEmpty, "\(failures.count) frames off the linear dissolve:\n\(failures.prefix(12).joined(separator: "\n"))")
    }

    // MARK: dip

    struct DipCase: Sendable, CustomStringConvertible {
        let colorKey: String
        let dipLuma: Double
        var description: String { colorKey.isEmpty ? "default black" : colorKey }
    }

    /// A 1 s dip from Y 60 to Y 200: over [1, 1.5) s the luma goes linearly from 60 to the dip colour,
    /// over [1.5, 2) s from the dip colour to 200, within ±2.
    @Test(arguments: [
        DipCase(colorKey: "", dipLuma: 16),
        DipCase(colorKey: ##", "color": "#FFFFFF""##, dipLuma: 235),
    ])
    func dipGoesThroughTheColourLinearly(_ dip: DipCase) throws {
        let folder = try TemporaryDirectory(prefix: "reel-transition-dip")
        try EndToEnd.makeClip(folder.file("a.mkv"), picture: .flat(y: 60), seconds: 2)
        try EndToEnd.makeClip(folder.file("b.mkv"), picture: .flat(y: 200), seconds: 2)
        let frames = try EndToEnd.renderFrames(in: folder, clips: """
            { "asset": "a", "in": 0, "out": 2 },
            { "asset": "b", "in": 0, "out": 2, "transition": { "type": "dip", "duration": 1\(dip.colorKey) } }
            """)
        try #require(frames.count == 90, "expected 90 frames, got \(frames.count)")
        var failures: [String] = []
        for (n, frame) in frames.enumerated() {
            let t = Double(n) / 30
            let expected: Double
            switch t {
            case ..<1: expected = 60
            case ..<1.5: expected = 60 + (dip.dipLuma - 60) * (t - 1) / 0.5
            case ..<2: expected = dip.dipLuma + (200 - dip.dipLuma) * (t - 1.5) / 0.5
            default: expected = 200
            }
            let (low, high) = frame.lumaRange
            if Double(low) < expected - 2 || Double(high) > expected + 2 {
                failures.append("frame \(n) (t \(String(format: "%.3f", t))): luma \(low)…\(high), expected \(String(format: "%.1f", expected))")
            }
        }
        #expect(failures.isEmpty, "\(failures.count) frames off the dip:\n\(failures.prefix(12).joined(separator: "\n"))")
    }

    // MARK: push, slide, wipe

    enum Direction: String, Sendable, CaseIterable {
        case left, right, up, down
        var isHorizontal: Bool { self == .left || self == .right }
        /// Whether the incoming clip enters from the far edge (right or bottom).
        var entersFromFarEdge: Bool { self == .left || self == .up }
    }

    struct MoveCase: Sendable, CustomStringConvertible {
        let type: String
        let direction: Direction
        var description: String { "\(type) \(direction.rawValue)" }
    }

    /// Both clips show the same gradient, the outgoing with neutral chroma and the incoming with
    /// purple chroma. At progress p = (n/30 − 1) along the axis of size S (W for left/right, H for up/down):
    /// - the incoming clip covers [S·(1−p), S) for left/up and [0, p·S) for right/down (boundary ±2 px);
    /// - what each region shows is the source displaced by: push and slide incoming −S·(1−p) (left/up)
    ///   or +S·(1−p) (right/down) source pixels, push outgoing +p·S (left/up) or −p·S (right/down),
    ///   everything else 0 (the slide's outgoing clip and both clips of a wipe stay put), within ±2 px.
    @Test(arguments: ["push", "slide", "wipe"].flatMap { type in
        Direction.allCases.map { MoveCase(type: type, direction: $0) }
    })
    func movingTransitionsFollowTheirRamps(_ move: MoveCase) throws {
        let folder = try TemporaryDirectory(prefix: "reel-transition-move")
        try EndToEnd.makeClip(folder.file("a.mkv"), picture: .gradient(chroma: Self.outgoingChroma), seconds: 2)
        try EndToEnd.makeClip(folder.file("b.mkv"), picture: .gradient(chroma: Self.incomingChroma), seconds: 2)
        let frames = try EndToEnd.renderFrames(in: folder, clips: """
            { "asset": "a", "in": 0, "out": 2 },
            { "asset": "b", "in": 0, "out": 2,
              "transition": { "type": "\(move.type)", "direction": "\(move.direction.rawValue)", "duration": 1 } }
            """)
        try #require(frames.count == 90, "expected 90 frames, got \(frames.count)")

        let direction = move.direction
        let size = Double(direction.isHorizontal ? Self.width : Self.height)
        var failures: [String] = []
        for n in 30..<60 {
            let p = Double(n - 30) / 30
            let frame = frames[n]
            let incoming = frame.incomingMask(chroma: Self.incomingChroma, horizontal: direction.isHorizontal)
            let label = "\(move) frame \(n) (p \(String(format: "%.3f", p)))"

            // Incoming coverage along the axis: a contiguous run at the expected edge.
            let count = incoming.filter { $0 }.count
            let contiguous = direction.entersFromFarEdge
                ? incoming.suffix(count).allSatisfy { $0 } : incoming.prefix(count).allSatisfy { $0 }
            let measuredBoundary = direction.entersFromFarEdge ? size - Double(2 * count) : Double(2 * count)
            let expectedBoundary = direction.entersFromFarEdge ? size * (1 - p) : size * p
            if !contiguous || abs(measuredBoundary - expectedBoundary) > 2 {
                failures.append("\(label): boundary at \(measuredBoundary) px (contiguous \(contiguous)), expected \(expectedBoundary)")
                continue
            }

            // Displacement of each region's picture relative to the source, in source pixels.
            let moves = move.type != "wipe"
            let incomingShift = moves ? (direction.entersFromFarEdge ? -size * (1 - p) : size * (1 - p)) : 0
            let outgoingShift = move.type == "push" ? (direction.entersFromFarEdge ? p * size : -p * size) : 0
            let boundary = Int(expectedBoundary.rounded())
            let farRange = min(boundary + 3, Int(size) - 1)..<(Int(size) - 1)
            let nearRange = 1..<max(1, boundary - 3)
            let incomingRange = direction.entersFromFarEdge ? farRange : nearRange
            let outgoingRange = direction.entersFromFarEdge ? nearRange : farRange
            for (name, range, shift) in [("incoming", incomingRange, incomingShift), ("outgoing", outgoingRange, outgoingShift)]
            where range.count >= 2 {
                if let problem = frame.checkShift(along: direction.isHorizontal, in: range, expected: shift) {
                    failures.append("\(label): \(name) \(problem)")
                }
            }
        }
        #expect(failures.isEmpty, "\(failures.count) problems:\n\(failures.prefix(12).joined(separator: "\n"))")

        // Outside the overlap the clips are shown untouched.
        for (n, chroma) in [(29, Self.outgoingChroma), (60, Self.incomingChroma)] {
            let expected = PlanarPicture.gradient(chroma: chroma)
            #expect(frames[n].y == expected.y && frames[n].u == expected.u && frames[n].v == expected.v,
                    "\(move): frame \(n) is not the untouched \(n < 30 ? "outgoing" : "incoming") picture")
        }
    }

    // MARK: clips that do not fill the canvas

    struct NarrowCase: Sendable, CustomStringConvertible {
        let transition: String
        /// The largest luma change any pixel may make from one frame to the next.
        let maximumStep: Int
        /// How many pixels may change by more than 10 from one frame to the next (a moving edge).
        let maximumChanged: Int
        var description: String { transition }
    }

    /// The outgoing clip fills the canvas (flat Y 60); the incoming one is a 32×36 flat Y 200 picture shown
    /// `contain` on the 64×36 black canvas, so 16 px background bars flank it once the transition is over.
    /// A transition is a continuous change: from frame 28 to 62 no pixel
    /// jumps further than the transition's own per-frame step (moving edges: at most 4 columns per frame,
    /// a dip: (235 − 16) / 15 ≈ 15 per frame), in particular not where the transition starts or ends.
    @Test(arguments: [
        NarrowCase(transition: #""type": "dissolve""#, maximumStep: 20, maximumChanged: 0),
        NarrowCase(transition: #""type": "push""#, maximumStep: 255, maximumChanged: 4 * 36 * 4),
        // The incoming clip slides in with its bars: three moving edges (bar, picture, bar).
        NarrowCase(transition: #""type": "slide""#, maximumStep: 255, maximumChanged: 4 * 36 * 3),
        NarrowCase(transition: #""type": "wipe""#, maximumStep: 255, maximumChanged: 4 * 36),
        NarrowCase(transition: ##""type": "dip", "color": "#FFFFFF""##, maximumStep: 20, maximumChanged: 0),
    ])
    func transitionsOfClipsNotFillingTheCanvasHaveNoJumps(_ narrow: NarrowCase) throws {
        let folder = try TemporaryDirectory(prefix: "reel-transition-narrow")
        try EndToEnd.makeClip(folder.file("a.mkv"), picture: .flat(y: 60), seconds: 2)
        try EndToEnd.makeClip(folder.file("b.mkv"), picture: .flat(y: 200, chroma: Self.incomingChroma), seconds: 2,
                              width: 32)
        let frames = try EndToEnd.renderFrames(in: folder, clips: """
            { "asset": "a", "in": 0, "out": 2 },
            { "asset": "b", "in": 0, "out": 2, "transition": { \(narrow.transition), "duration": 1 } }
            """)
        try #require(frames.count == 90, "expected 90 frames, got \(frames.count)")
        var jumps: [String] = []
        for n in 29...62 {
            let steps = zip(frames[n - 1].y, frames[n].y).map { abs(Int($0) - Int($1)) }
            let largest = steps.max() ?? 0
            let changed = steps.filter { $0 > 10 }.count
            if largest > narrow.maximumStep || (narrow.maximumChanged > 0 && changed > narrow.maximumChanged) {
                let rowBefore = stride(from: 0, to: Self.width, by: 4).map { String(frames[n - 1].y[18 * Self.width + $0]) }
                let rowAfter = stride(from: 0, to: Self.width, by: 4).map { String(frames[n].y[18 * Self.width + $0]) }
                jumps.append("frame \(n - 1) → \(n): largest step \(largest), \(changed) pixels changed by > 10; "
                    + "middle row (every 4th px) \(rowBefore.joined(separator: " ")) → \(rowAfter.joined(separator: " "))")
            }
        }
        #expect(jumps.isEmpty, "\(narrow): \(jumps.count) jumps:\n\(jumps.prefix(8).joined(separator: "\n"))")
    }

    // MARK: explicit picture-in-picture

    /// Explicit form: track 1 a full-frame flat Y 60, track 2 (top) a flat Y 200 purple inset whose
    /// transform ramps from scale 0.5 at (0, 0) to scale 0.5 at (32, 18) and whose crop ramps from the whole
    /// frame [0, 0, 64, 36] to [16, 6, 32, 24] over [0, 2) s. At p = n/60 the inset covers canvas
    /// x ∈ [40p, 32 + 24p), y ∈ [21p, 18 + 15p) (±2 px), showing Y 200; the rest shows Y 60.
    @Test func explicitPictureInPictureFollowsTransformAndCropRamps() throws {
        let folder = try TemporaryDirectory(prefix: "reel-transition-pip")
        try EndToEnd.makeClip(folder.file("bg.mkv"), picture: .flat(y: 60), seconds: 2)
        try EndToEnd.makeClip(folder.file("inset.mkv"), picture: .flat(y: 200, chroma: Self.incomingChroma), seconds: 2)
        let project = """
            { "reel": 1,
              "output": { "path": "out.mkv", "size": [64, 36], "frameRate": 30, "video": { "crf": 0 }, "audio": false },
              "assets": { "bg": { "path": "bg.mkv" }, "inset": { "path": "inset.mkv" } },
              "composition": { "tracks": [
                { "id": 1, "type": "video", "segments": [
                  { "asset": "bg", "source": { "start": 0, "duration": 2 }, "target": { "start": 0, "duration": 2 } } ] },
                { "id": 2, "type": "video", "segments": [
                  { "asset": "inset", "source": { "start": 0, "duration": 2 }, "target": { "start": 0, "duration": 2 } } ] } ] },
              "videoComposition": {
                "frameDuration": "1/30", "renderSize": [64, 36],
                "instructions": [ { "start": 0, "duration": 2, "layers": [
                  { "track": 2,
                    "transform": [ { "start": 0, "duration": 2,
                                     "from": { "scale": 0.5, "translate": [0, 0] },
                                     "to": { "scale": 0.5, "translate": [32, 18] } } ],
                    "crop": [ { "start": 0, "duration": 2, "from": [0, 0, 64, 36], "to": [16, 6, 32, 24] } ] },
                  { "track": 1 } ] } ] } }
            """
        let result = try EndToEnd.render(project, in: folder)
        try #require(result.status == 0, "reel render failed (\(result.status)): \(result.stderrText)")
        let frames = try EndToEnd.frames(of: folder.file("out.mkv"))
        try #require(frames.count == 60, "expected 60 frames, got \(frames.count)")

        var failures: [String] = []
        for (n, frame) in frames.enumerated() {
            let p = Double(n) / 60
            let expected = (x0: 40 * p, x1: 32 + 24 * p, y0: 21 * p, y1: 18 + 15 * p)
            guard let box = frame.lumaBox(above: 130) else {
                failures.append("frame \(n): no inset")
                continue
            }
            let off = [box.x0 - expected.x0, box.x1 - expected.x1, box.y0 - expected.y0, box.y1 - expected.y1]
            if off.contains(where: { abs($0) > 2 }) {
                failures.append(String(format: "frame %d: inset x [%.0f, %.0f) y [%.0f, %.0f), expected x [%.1f, %.1f) y [%.1f, %.1f)",
                                       n, box.x0, box.x1, box.y0, box.y1, expected.x0, expected.x1, expected.y0, expected.y1))
            }
            // Flat colours: away from the inset's edges only 60 and 200 occur.
            let stray = frame.y.filter { abs(Int($0) - 60) > 2 && abs(Int($0) - 200) > 2 }.count
            if stray > 2 * (Self.width + Self.height) {
                failures.append("frame \(n): \(stray) pixels neither background nor inset")
            }
        }
        #expect(failures.isEmpty, "\(failures.count) problems:\n\(failures.prefix(12).joined(separator: "\n"))")
    }

    // MARK: audio across a transition

    /// Outgoing 400 Hz, incoming 600 Hz (amplitude 0.5, stereo, both whole cycles per 10 ms window), a 1 s
    /// dissolve over [1, 2) s: per 10 ms window the 400 Hz amplitude is 0.5·g_out(p) and the 600 Hz one
    /// 0.5·g_in(p) at the window's centre, with (1 − p, p) for linear and (cos pπ/2, sin pπ/2) for equal
    /// power, within 0.015 (3 % of the amplitude).
    @Test(arguments: ["linear", "equalPower"])
    func audioCrossFadesAcrossATransition(_ curve: String) throws {
        let folder = try TemporaryDirectory(prefix: "reel-transition-audio")
        try EndToEnd.makeClip(folder.file("a.mkv"), picture: .flat(y: 60), seconds: 2, audio: EndToEnd.sine(400, amplitude: 0.5))
        try EndToEnd.makeClip(folder.file("b.mkv"), picture: .flat(y: 200), seconds: 2, audio: EndToEnd.sine(600, amplitude: 0.5))
        let curveKey = curve == "linear" ? "" : #", "audioCurve": "equalPower""#
        let project = """
            { "reel": 1,
              "output": { "path": "out.mov", "size": [64, 36], "frameRate": 30, "audio": { "codec": "pcm" } },
              "assets": { "a": { "path": "a.mkv" }, "b": { "path": "b.mkv" } },
              "timeline": { "clips": [
                { "asset": "a", "in": 0, "out": 2 },
                { "asset": "b", "in": 0, "out": 2, "transition": { "type": "dissolve", "duration": 1\(curveKey) } } ] } }
            """
        let result = try EndToEnd.render(project, in: folder)
        try #require(result.status == 0, "reel render failed (\(result.status)): \(result.stderrText)")
        let samples = try readAudioSamples(of: folder.file("out.mov"), sampleRate: 48000, channels: 2)
        try #require(samples[0].count >= 144_000, "expected 144000 samples, got \(samples[0].count)")

        var failures: [String] = []
        for channel in 0..<2 {
            for start in stride(from: 0, to: 144_000 - 479, by: 480) {
                let window = samples[channel][start..<start + 480]
                let centre = (Double(start) + 239.5) / 48000
                let p = min(1, max(0, centre - 1))
                let (outGain, inGain) = curve == "linear"
                    ? (1 - p, p) : (cos(p * .pi / 2), sin(p * .pi / 2))
                let measured = (EndToEnd.amplitude(window, frequency: 400), EndToEnd.amplitude(window, frequency: 600))
                if abs(measured.0 - 0.5 * outGain) > 0.015 || abs(measured.1 - 0.5 * inGain) > 0.015 {
                    failures.append(String(format: "channel %d, %.3f s: 400 Hz %.4f (expected %.4f), 600 Hz %.4f (expected %.4f)",
                                           channel, centre, measured.0, 0.5 * outGain, measured.1, 0.5 * inGain))
                }
            }
        }
        #expect(failures.isEmpty, "\(curve): \(failures.count) windows off:\n\(failures.prefix(12).joined(separator: "\n"))")
    }
}

// MARK: - Support

/// One decoded 8-bit 4:2:0 picture of the test size: luma row by row, chroma at half resolution.
struct PlanarPicture: Sendable, Equatable {
    var y: [UInt8]
    var u: [UInt8]
    var v: [UInt8]

    static let width = TransitionRenderTests.width
    static let height = TransitionRenderTests.height
    static let chromaWidth = width / 2
    static let chromaHeight = height / 2
    static let byteCount = width * height + 2 * chromaWidth * chromaHeight

    static func flat(y: UInt8, chroma: (u: UInt8, v: UInt8) = (128, 128)) -> PlanarPicture {
        let chromaCount = chromaWidth * chromaHeight
        return PlanarPicture(y: [UInt8](repeating: y, count: width * height),
                       u: [UInt8](repeating: chroma.u, count: chromaCount),
                       v: [UInt8](repeating: chroma.v, count: chromaCount))
    }

    static func gradient(chroma: (u: UInt8, v: UInt8)) -> PlanarPicture {
        var picture = flat(y: 0, chroma: chroma)
        for y in 0..<height {
            for x in 0..<width {
                picture.y[y * width + x] = TransitionRenderTests.gradient(x, y)
            }
        }
        return picture
    }

    init(y: [UInt8], u: [UInt8], v: [UInt8]) {
        self.y = y
        self.u = u
        self.v = v
    }

    init(bytes: ArraySlice<UInt8>) {
        let lumaEnd = bytes.startIndex + Self.width * Self.height
        let chromaCount = Self.chromaWidth * Self.chromaHeight
        y = Array(bytes[bytes.startIndex..<lumaEnd])
        u = Array(bytes[lumaEnd..<lumaEnd + chromaCount])
        v = Array(bytes[lumaEnd + chromaCount..<lumaEnd + 2 * chromaCount])
    }

    var bytes: Data { Data(y + u + v) }

    /// The leftmost `newWidth` (even, ≤ 64) columns as raw yuv420p bytes.
    func cropped(toWidth newWidth: Int) -> Data {
        var out: [UInt8] = []
        for row in 0..<Self.height { out += y[row * Self.width..<row * Self.width + newWidth] }
        for plane in [u, v] {
            for row in 0..<Self.chromaHeight { out += plane[row * Self.chromaWidth..<row * Self.chromaWidth + newWidth / 2] }
        }
        return Data(out)
    }

    var lumaRange: (UInt8, UInt8) { (y.min() ?? 0, y.max() ?? 0) }

    /// Per chroma column (horizontal) or row (vertical): whether most of its chroma samples are the
    /// incoming colour.
    func incomingMask(chroma: (u: UInt8, v: UInt8), horizontal: Bool) -> [Bool] {
        let lines = horizontal ? Self.chromaWidth : Self.chromaHeight
        let across = horizontal ? Self.chromaHeight : Self.chromaWidth
        return (0..<lines).map { line in
            var hits = 0
            for i in 0..<across {
                let index = horizontal ? i * Self.chromaWidth + line : line * Self.chromaWidth + i
                if abs(Int(u[index]) - Int(chroma.u)) < 12, abs(Int(v[index]) - Int(chroma.v)) < 12 { hits += 1 }
            }
            return hits * 2 > across
        }
    }

    /// Checks that luma columns (horizontal) or rows (vertical) in `range` show the gradient displaced by
    /// `expected` source pixels along that axis (shown(x) = source(x + expected)), within 2 px on average
    /// and 3 px at every pixel; returns a description of the problem, or nil.
    func checkShift(along horizontal: Bool, in range: Range<Int>, expected: Double) -> String? {
        let slope = horizontal ? 1.0 : 4.0
        var sum = 0.0, count = 0, worst = 0.0
        for line in range {
            let across = horizontal ? Self.height : Self.width
            for i in 0..<across {
                let (x, yy) = horizontal ? (line, i) : (i, line)
                let shown = Double(y[yy * Self.width + x])
                let shift = (shown - Double(TransitionRenderTests.gradient(x, yy))) / slope
                sum += shift
                count += 1
                worst = max(worst, abs(shift - expected))
            }
        }
        let mean = sum / Double(max(1, count))
        guard abs(mean - expected) > 2 || worst > 3 else { return nil }
        return String(format: "picture displaced by %.2f px on average (worst pixel off by %.1f px), expected %.2f, over %@ %d..<%d",
                      mean, worst, expected, horizontal ? "columns" : "rows", range.lowerBound, range.upperBound)
    }

    /// The bounding box of luma pixels brighter than `threshold`, as half-open pixel edges.
    func lumaBox(above threshold: UInt8) -> (x0: Double, x1: Double, y0: Double, y1: Double)? {
        var x0 = Self.width, x1 = 0, y0 = Self.height, y1 = 0
        for yy in 0..<Self.height {
            for x in 0..<Self.width where y[yy * Self.width + x] > threshold {
                x0 = min(x0, x)
                x1 = max(x1, x + 1)
                y0 = min(y0, yy)
                y1 = max(y1, yy + 1)
            }
        }
        guard x1 > x0, y1 > y0 else { return nil }
        return (Double(x0), Double(x1), Double(y0), Double(y1))
    }
}

/// Generating sources, running `reel`, decoding its output.
enum EndToEnd {
    /// An aevalsrc expression pair (stereo) for a sine of `frequency` Hz.
    static func sine(_ frequency: Int, amplitude: Double) -> String {
        let one = "\(amplitude)*sin(2*PI*\(frequency)*t)"
        return "\(one)|\(one)"
    }

    /// Runs ffmpeg (`-v error -y` prepended) and returns its stdout, throwing with its stderr on failure.
    @discardableResult
    static func ffmpeg(_ args: [String], stdin: Data? = nil) throws -> Data {
        let result = try run("ffmpeg", ["-v", "error", "-nostdin", "-y"] + args, stdin: stdin)
        guard !result.terminatedBySignal, result.status == 0 else {
            throw SupportError("ffmpeg \(args.joined(separator: " ")) failed (\(result.status)): \(result.stderrText)")
        }
        return result.stdout
    }

    /// Writes `seconds` × 30 frames of `picture` as lossless FFV1 (and, with `audio`, an aevalsrc
    /// expression list as 48 kHz PCM s16) into the Matroska file `url`.
    /// A `width` other than the picture's (64) keeps only the picture's leftmost `width` columns.
    static func makeClip(_ url: URL, picture: PlanarPicture, seconds: Int, width: Int = PlanarPicture.width,
                         audio: String? = nil) throws {
        let bytes = width == PlanarPicture.width ? picture.bytes : picture.cropped(toWidth: width)
        var frames = Data()
        for _ in 0..<(seconds * 30) { frames.append(bytes) }
        var args = ["-f", "rawvideo", "-pix_fmt", "yuv420p", "-s", "\(width)x\(PlanarPicture.height)",
                    "-framerate", "30", "-i", "-"]
        if let audio {
            args += ["-f", "lavfi", "-i", "aevalsrc=exprs=\(audio):s=48000:d=\(seconds)",
                     "-map", "0:v", "-map", "1:a", "-c:a", "pcm_s16le"]
        }
        // Tagged BT.709 (reel's working space), so that reel takes the samples as they are.
        try ffmpeg(args + ["-c:v", "ffv1", "-colorspace", "bt709", "-color_range", "tv", url.path], stdin: frames)
    }

    /// Writes `project` as project.json in `folder` and runs `reel render` on it quietly.
    static func render(_ project: String, in folder: TemporaryDirectory) throws -> ProcessResult {
        let path = folder.file("project.json")
        try project.write(to: path, atomically: true, encoding: .utf8)
        return try run(builtExecutable(named: "reel").path, ["render", path.path, "-q", "--force"])
    }

    /// Renders a 64×36, 30 fps storyline of assets a.mkv and b.mkv (`clips` is the inside of the clip list)
    /// to lossless H.264 without audio, and returns its frames.
    static func renderFrames(in folder: TemporaryDirectory, clips: String) throws -> [PlanarPicture] {
        let project = """
            { "reel": 1,
              "output": { "path": "out.mkv", "size": [64, 36], "frameRate": 30, "video": { "crf": 0 }, "audio": false },
              "assets": { "a": { "path": "a.mkv" }, "b": { "path": "b.mkv" } },
              "timeline": { "clips": [ \(clips) ] } }
            """
        let result = try render(project, in: folder)
        guard result.status == 0 else {
            throw SupportError("reel render failed (\(result.status)): \(result.stderrText)")
        }
        return try frames(of: folder.file("out.mkv"))
    }

    /// Every frame of the first video stream as stored (yuv420p, no range conversion).
    static func frames(of url: URL) throws -> [PlanarPicture] {
        let data = [UInt8](try ffmpeg(["-i", url.path, "-map", "0:v:0", "-fps_mode", "passthrough",
                                       "-pix_fmt", "yuv420p", "-f", "rawvideo", "-"]))
        guard data.count % PlanarPicture.byteCount == 0 else {
            throw SupportError("decoded \(data.count) bytes, not whole 64x36 yuv420p frames")
        }
        return stride(from: 0, to: data.count, by: PlanarPicture.byteCount).map {
            PlanarPicture(bytes: data[$0..<$0 + PlanarPicture.byteCount])
        }
    }

    /// The amplitude of the `frequency` Hz component of `samples` at 48 kHz (a single DFT bin, 2|X|/N):
    /// exact for a sine with a whole number of cycles in the window.
    static func amplitude(_ samples: ArraySlice<Float>, frequency: Double, sampleRate: Double = 48000) -> Double {
        var re = 0.0, im = 0.0
        let step = 2 * Double.pi * frequency / sampleRate
        for (i, sample) in samples.enumerated() {
            re += Double(sample) * cos(step * Double(i))
            im -= Double(sample) * sin(step * Double(i))
        }
        return 2 * (re * re + im * im).squareRoot() / Double(max(1, samples.count))
    }
}
