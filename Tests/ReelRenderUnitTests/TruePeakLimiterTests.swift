import Foundation
import Testing
@testable import ReelMedia
@testable import ReelRender

/// The true-peak limiter alone: under the ceiling on the oversampled waveform (read back by libebur128), the
/// same samples however the input is cut into calls, and silent where nothing needs limiting.
@Suite struct TruePeakLimiterTests {
    /// Two seconds of stereo: quiet, then a 3 kHz burst at twice full scale (+6 dBFS) from 0.5 s to 1 s, quiet
    /// again; the burst starts at sample 0 of a second copy too, to check a peak right at the start.
    static func signal(sampleRate: Int = 48000, burstAtStart: Bool) -> [[Float]] {
        let count = 2 * sampleRate
        return (0..<2).map { channel in
            (0..<count).map { k in
                let t = Double(k) / Double(sampleRate)
                let loud = burstAtStart ? t < 0.5 : (t >= 0.5 && t < 1)
                let amplitude = loud ? 2.0 : 0.1
                return Float(amplitude * sin(2 * Double.pi * 3000 * t + Double(channel)))
            }
        }
    }

    /// Runs `input` through a limiter in calls of `chunk` samples, then flushes it with silence; returns the
    /// output aligned with the input (the latency removed) and the limiter.
    static func limited(_ input: [[Float]], chunk: Int, ceilingDB: Double = -1) -> ([[Float]], TruePeakLimiter) {
        let limiter = TruePeakLimiter(channels: 2, sampleRate: 48000, ceilingDB: ceilingDB)
        let total = input[0].count + limiter.latency
        var output: [[Float]] = [[], []]
        let planes = (0..<2).map { _ in UnsafeMutablePointer<Float>.allocate(capacity: chunk) }
        defer { for plane in planes { plane.deallocate() } }
        var position = 0
        while position < total {
            let count = min(chunk, total - position)
            for c in 0..<2 {
                for k in 0..<count {
                    let index = position + k
                    planes[c][k] = index < input[c].count ? input[c][index] : 0
                }
            }
            limiter.process(planes, count: count)
            for c in 0..<2 { output[c].append(contentsOf: UnsafeBufferPointer(start: planes[c], count: count)) }
            position += count
        }
        return (output.map { Array($0.dropFirst(limiter.latency)) }, limiter)
    }

    static func truePeakDB(_ planes: [[Float]]) throws -> Double {
        let meter = try LoudnessMeter(channels: 2, sampleRate: 48000)
        try planes[0].withUnsafeBufferPointer { left in
            try planes[1].withUnsafeBufferPointer { right in
                try meter.add([left.baseAddress!, right.baseAddress!], count: left.count)
            }
        }
        return try #require(meter.measurement.truePeak)
    }

    @Test(arguments: [false, true])
    func keepsTheTruePeakUnderTheCeiling(burstAtStart: Bool) throws {
        let input = Self.signal(burstAtStart: burstAtStart)
        let (output, limiter) = Self.limited(input, chunk: 4096)
        #expect(try Self.truePeakDB(input) > 5.5)
        let peak = try Self.truePeakDB(output)
        #expect(peak <= -1 + 0.05, "true peak \(peak) dBTP")
        #expect(limiter.reducedSampleCount > 20000)
        // Where nothing is loud (well before the burst, or well after it once released), samples pass untouched.
        let quiet = burstAtStart ? (90000..<96000) : (0..<20000)
        for c in 0..<2 { #expect(quiet.allSatisfy { output[c][$0] == input[c][$0] }) }
    }

    @Test func theOutputDoesNotDependOnHowTheInputIsCut() {
        let input = Self.signal(burstAtStart: true)
        let (whole, _) = Self.limited(input, chunk: 8192)
        let (pieces, _) = Self.limited(input, chunk: 37)
        #expect(whole == pieces)
    }
}
