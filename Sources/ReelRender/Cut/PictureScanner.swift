import Foundation
import ReelMedia
import ReelTime

/// Looks at every picture of one video stream once, in presentation order, for where shots change (`--scenes`) and
/// where the picture stands still (`--still`).
///
/// Both read one figure per picture, ffmpeg's `scdet`'s: the mean absolute difference from the picture before,
/// over every sample of every plane, in percent of full scale (`mafd`). A picture starts a new shot when
/// min(mafd, |mafd − the previous picture's mafd|) — scdet's score, high for one picture at a cut and low through
/// steady motion — reaches the threshold (0–100; scdet's default is 10), so the same threshold finds the same
/// shots as `ffmpeg -vf scdet=threshold=T`. A picture is unchanged when its mafd stays below `stillChange`
/// (half a code value on average): what an encoder leaves of a frozen picture, while a camera's noise or any
/// motion is a change. Pictures that are not 8-bit planar Y′CbCr are compared after conversion to 4:2:0.
struct PictureScanner {
    /// `--scenes`: the score (0–100) at which a picture starts a new shot; nil when shots are not looked for.
    var sceneThreshold: Double?
    /// `--still`: the shortest stretch of unchanged pictures that is cut; nil when stillness is not looked for.
    var stillLength: Time?

    /// The mafd (percent of full scale) below which a picture counts as the picture before it.
    static let stillChange = 0.2

    /// What a scan found, in source seconds.
    struct Findings {
        /// The presentation time of the first picture of every shot after the first.
        var shotStarts: [Time] = []
        /// Stretches of at least `stillLength` over which the picture did not change, each from the time of the
        /// last picture that changed to the time of the next one that does (or `end`).
        var stills: [CutCandidate] = []
    }

    /// Decodes `reader` from its first picture to its last and reports what it found; `end` closes a still
    /// stretch that lasts to the stream's end.
    func scan(_ reader: VideoReader, of input: String, end: Time, cancellation: CancellationFlag?)
        throws(RenderError) -> Findings
    {
        var findings = Findings()
        var previous: VideoFrame?
        var previousMafd = 0.0
        var stillSince: Time?
        let converter = Scaler()
        func closeStill(at time: Time) throws(RenderError) {
            defer { stillSince = nil }
            guard let stillLength, let start = stillSince, time > start else { return }
            do {
                let range = try TimeRange(start: start, end: time)
                if range.duration >= stillLength { findings.stills.append(CutCandidate(range: range, reason: .still)) }
            } catch {
                throw RenderError(.internal, "\(input): a still stretch from \(start) s: \(error)")
            }
        }
        while true {
            if cancellation?.isCancelled == true { throw RenderError(.cancelled, "interrupted") }
            let decoded: VideoFrame?
            do {
                decoded = try reader.nextFrame()
            } catch {
                throw CutAnalysis.located(error, input)
            }
            guard let decoded else { break }
            let frame: VideoFrame
            do {
                // Holding the picture before keeps the decoder from reusing its buffer: no copy is needed.
                frame = try Self.planeSizes(of: decoded) != nil ? decoded
                    : converter.converted(decoded, width: decoded.width, height: decoded.height, format: .yuv420p)
            } catch {
                throw RenderError(.internal, "\(input): picture at \(decoded.time) s: \(error)")
            }
            defer { previous = frame }
            guard let previous, let mafd = Self.meanAbsoluteDifference(previous, frame) else {
                // The first picture, or one of another size or format: nothing to compare with, and a new start.
                try closeStill(at: frame.time)
                previousMafd = 0
                stillSince = frame.time
                continue
            }
            if let sceneThreshold, min(mafd, abs(mafd - previousMafd)) >= sceneThreshold {
                findings.shotStarts.append(frame.time)
            }
            previousMafd = mafd
            if mafd >= Self.stillChange {
                try closeStill(at: frame.time)
                stillSince = frame.time
            }
        }
        try closeStill(at: end)
        return findings
    }

    /// The width and height of each plane of `frame` when its samples are 8-bit planar Y′CbCr (or grey), which
    /// this scanner reads directly; nil for other formats.
    private static func planeSizes(of frame: VideoFrame) -> [(width: Int, height: Int)]? {
        let name = frame.format.name
        let luma = (width: frame.width, height: frame.height)
        let chroma: (width: Int, height: Int)
        switch name {
        case "yuv420p", "yuvj420p": chroma = ((frame.width + 1) / 2, (frame.height + 1) / 2)
        case "yuv422p", "yuvj422p": chroma = ((frame.width + 1) / 2, frame.height)
        case "yuv444p", "yuvj444p": chroma = luma
        case "gray": return [luma]
        default: return nil
        }
        return [luma, chroma, chroma]
    }

    /// scdet's mafd of two pictures: the mean absolute difference over every sample of every plane, in percent of
    /// full scale; nil when they differ in size or format.
    static func meanAbsoluteDifference(_ a: VideoFrame, _ b: VideoFrame) -> Double? {
        guard a.width == b.width, a.height == b.height, a.format == b.format, let sizes = planeSizes(of: a) else {
            return nil
        }
        var sum = 0
        var count = 0
        for (plane, size) in sizes.enumerated() {
            let first = a.plane(plane), second = b.plane(plane)
            let firstStride = a.stride(plane), secondStride = b.stride(plane)
            for row in 0..<size.height {
                sum += rowDifference(first + row * firstStride, second + row * secondStride, count: size.width)
            }
            count += size.width * size.height
        }
        return count == 0 ? 0 : Double(sum) * 100 / Double(count) / 256
    }

    /// The sum of absolute differences of one row (at most 2^24 samples, so 32-bit partial sums cannot overflow).
    @inline(__always)
    private static func rowDifference(_ a: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, count: Int) -> Int {
        var partial: UInt32 = 0
        for i in 0..<count {
            let x = Int16(a[i]) &- Int16(b[i])
            partial &+= UInt32(truncatingIfNeeded: x < 0 ? -x : x)
        }
        return Int(partial)
    }
}
