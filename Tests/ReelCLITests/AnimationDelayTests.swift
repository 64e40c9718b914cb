import Foundation
import ReelTestSupport
import Testing

/// Animated GIF and WebP last exactly as long as their frames: the delays, read from the files' own bytes as
/// players sum them (GIF's graphic control extensions in centiseconds, WebP's ANMF frames in milliseconds), add up
/// to round(n · d) for n frames of d seconds, frame k lasting round((k + 1)·d) − round(k·d) ticks.
@Suite struct AnimationDelayTests: CLISuite {
    let folder: TemporaryDirectory
    let reel: URL

    init() throws {
        (folder, reel) = try Self.workspace(prefix: "reel-animation-delays")
    }

    /// Frame rates as written in the project, as (numerator, denominator), and timeline lengths: the 1 s clip
    /// alone, or run on to 2.3 s over the background (repeated frames, which libwebp merges).
    static let cases: [(rate: String, numerator: Int64, denominator: Int64, end: String)] = [
        ("15", 15, 1, "1"), ("15", 15, 1, "2.3"), ("24", 24, 1, "1"), ("24", 24, 1, "2.3"),
        ("\"30000/1001\"", 30000, 1001, "1"), ("\"30000/1001\"", 30000, 1001, "2.3"), ("10", 10, 1, "2.3"),
    ]

    /// round(k · ticks · den / num), halves up.
    private static func tick(_ frame: Int64, _ numerator: Int64, _ denominator: Int64, _ ticks: Int64) -> Int64 {
        (2 * frame * ticks * denominator + numerator) / (2 * numerator)
    }

    /// The output frames of a timeline `end` seconds long (a decimal with at most one place), rounded up.
    private static func frameCount(end: String, _ numerator: Int64, _ denominator: Int64) -> Int64 {
        let tenths = Int64((Double(end)! * 10).rounded())
        // ⌈tenths / 10 · num / den⌉
        return (tenths * numerator + 10 * denominator - 1) / (10 * denominator)
    }

    private func project(_ name: String, output: String, rate: String, end: String) throws -> String {
        try write(name, """
            { "reel": 1, "output": { "path": "\(output)", "size": [64, 36], "frameRate": \(rate), "end": \(end) },
              "assets": { "clip": { "path": "clip.mp4" } },
              "timeline": { "clips": [ { "asset": "clip" } ] } }
            """)
    }

    /// The delay of every graphic control extension of a GIF, in centiseconds, in file order.
    private func gifDelays(_ bytes: [UInt8]) throws -> [Int64] {
        var offset = 13
        if bytes[10] & 0x80 != 0 { offset += 3 << (Int(bytes[10] & 7) + 1) }
        var delays: [Int64] = []
        func skipSubBlocks() { while offset < bytes.count, bytes[offset] != 0 { offset += Int(bytes[offset]) + 1 }; offset += 1 }
        while offset < bytes.count {
            switch bytes[offset] {
            case 0x3b:
                return delays
            case 0x21:
                if bytes[offset + 1] == 0xf9 { delays.append(Int64(bytes[offset + 4]) | Int64(bytes[offset + 5]) << 8) }
                offset += 2
                skipSubBlocks()
            case 0x2c:
                let flags = bytes[offset + 9]
                offset += 10
                if flags & 0x80 != 0 { offset += 3 << (Int(flags & 7) + 1) }
                offset += 1  // LZW minimum code size
                skipSubBlocks()
            default:
                throw SupportError("unexpected GIF block 0x\(String(bytes[offset], radix: 16)) at \(offset)")
            }
        }
        throw SupportError("the GIF has no trailer")
    }

    /// The duration of every ANMF frame of an animated WebP, in milliseconds.
    private func webPDurations(_ bytes: [UInt8]) -> [Int64] {
        var offset = 12
        var durations: [Int64] = []
        while offset + 8 <= bytes.count {
            let size = Int(bytes[offset + 4]) | Int(bytes[offset + 5]) << 8 | Int(bytes[offset + 6]) << 16
                | Int(bytes[offset + 7]) << 24
            if Array(bytes[offset..<offset + 4]) == Array("ANMF".utf8) {
                let field = offset + 20
                durations.append(Int64(bytes[field]) | Int64(bytes[field + 1]) << 8 | Int64(bytes[field + 2]) << 16)
            }
            offset += 8 + size + size % 2
        }
        return durations
    }

    @Test(arguments: cases)
    func aGifLastsItsFramesExactly(rate: String, numerator: Int64, denominator: Int64, end: String) throws {
        let name = "g-\(numerator)-\(end)"
        let result = try reel(["render", try project("\(name).json", output: "\(name).gif", rate: rate, end: end), "-q"])
        #expect(result.status == 0, "\(result.stderrText)")
        let delays = try gifDelays([UInt8](try Data(contentsOf: folder.file("\(name).gif"))))
        let frames = Self.frameCount(end: end, numerator, denominator)
        let expected = (0..<frames).map {
            Self.tick($0 + 1, numerator, denominator, 100) - Self.tick($0, numerator, denominator, 100)
        }
        #expect(delays == expected)
        #expect(delays.reduce(0, +) == Self.tick(frames, numerator, denominator, 100), "\(delays)")
    }

    @Test(arguments: cases)
    func aWebPLastsItsFramesExactly(rate: String, numerator: Int64, denominator: Int64, end: String) throws {
        let name = "w-\(numerator)-\(end)"
        let result = try reel(["render", try project("\(name).json", output: "\(name).webp", rate: rate, end: end), "-q"])
        #expect(result.status == 0, "\(result.stderrText)")
        let durations = webPDurations([UInt8](try Data(contentsOf: folder.file("\(name).webp"))))
        let frames = Self.frameCount(end: end, numerator, denominator)
        #expect(durations.count > 1 && durations.allSatisfy { $0 > 0 }, "\(durations)")
        #expect(durations.reduce(0, +) == Self.tick(frames, numerator, denominator, 1000), "\(durations)")
        // Every ANMF frame starts where one of the output frames starts, on the millisecond nearest its exact time.
        let starts = Set((0..<frames).map { Self.tick($0, numerator, denominator, 1000) })
        var start: Int64 = 0
        for duration in durations {
            #expect(starts.contains(start), "a frame starts at \(start) ms: \(durations)")
            start += duration
        }
    }
}
