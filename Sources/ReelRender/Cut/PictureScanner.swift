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
        var previous: [UInt8] = []
        var current: [UInt8] = []
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
                let failure = RenderError(media: error)
                throw RenderError(failure.kind, "\(input): \(failure.message)")
            }
            guard let decoded else { break }
            let frame: VideoFrame
            do {
                frame = try Self.isPlanar8Bit(decoded) ? decoded
                    : converter.converted(decoded, width: decoded.width, height: decoded.height, format: .yuv420p)
            } catch {
                throw RenderError(.internal, "\(input): picture at \(decoded.time) s: \(error)")
            }
            Self.copySamples(of: frame, into: &current)
            defer { swap(&previous, &current) }
            guard previous.count == current.count, !previous.isEmpty else {
                // The first picture, or one of another size: nothing to compare with, and a new start.
                try closeStill(at: frame.time)
                previousMafd = 0
                stillSince = frame.time
                continue
            }
            let mafd = Self.meanAbsoluteDifference(previous, current)
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

    /// Whether `frame`'s planes are 8-bit Y′CbCr samples this scanner reads directly.
    private static func isPlanar8Bit(_ frame: VideoFrame) -> Bool {
        ["yuv420p", "yuvj420p", "yuv422p", "yuvj422p", "yuv444p", "yuvj444p", "gray"].contains(frame.format.name)
    }

    /// Every sample of every plane of `frame`, row after row without padding, into `samples`.
    private static func copySamples(of frame: VideoFrame, into samples: inout [UInt8]) {
        let name = frame.format.name
        let chromaWidth = name.hasSuffix("444p") ? frame.width : (frame.width + 1) / 2
        let chromaHeight = name.hasSuffix("420p") ? (frame.height + 1) / 2 : frame.height
        let sizes = name == "gray" ? [(frame.width, frame.height)]
            : [(frame.width, frame.height), (chromaWidth, chromaHeight), (chromaWidth, chromaHeight)]
        let total = sizes.reduce(0) { $0 + $1.0 * $1.1 }
        if samples.count != total { samples = [UInt8](repeating: 0, count: total) }
        samples.withUnsafeMutableBufferPointer { target in
            var offset = 0
            for (plane, (width, height)) in sizes.enumerated() {
                let source = frame.plane(plane), stride = frame.stride(plane)
                for row in 0..<height {
                    (target.baseAddress! + offset).update(from: source + row * stride, count: width)
                    offset += width
                }
            }
        }
    }

    /// scdet's mafd of two pictures' samples: the mean absolute difference in percent of full scale.
    static func meanAbsoluteDifference(_ a: [UInt8], _ b: [UInt8]) -> Double {
        var sum = 0
        a.withUnsafeBufferPointer { a in
            b.withUnsafeBufferPointer { b in
                // Blocks of at most 2^23 samples keep the 32-bit partial sums from overflowing.
                var start = 0
                while start < a.count {
                    let end = min(a.count, start + 1 << 23)
                    var partial: UInt32 = 0
                    for i in start..<end {
                        let x = Int16(a[i]) &- Int16(b[i])
                        partial &+= UInt32(truncatingIfNeeded: x < 0 ? -x : x)
                    }
                    sum += Int(partial)
                    start = end
                }
            }
        }
        return a.isEmpty ? 0 : Double(sum) * 100 / Double(a.count) / 256
    }
}
