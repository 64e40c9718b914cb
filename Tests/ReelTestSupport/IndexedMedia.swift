import Foundation

/// A generated test video whose every frame shows its own index, so a test can
/// read back exactly which source frames a render used.
///
/// The picture is a 4×4 grid of cells (cell edges at `column × width / 4` and
/// `row × height / 4`). The four corner cells are references (top-left and
/// bottom-right white, top-right and bottom-left black); the other twelve, in
/// row-major order, carry bits 0…11 of the frame index, black (Y = 16) for 0 and
/// white (Y = 235) for 1. Chroma is neutral (128). Indices run from 0 to 4095.
public enum IndexedMedia {
    /// The largest frame index the pattern can carry (12 bits).
    public static let maximumIndex = 4095

    /// Writes an indexed video (and optionally a counter audio track) with the ffmpeg CLI.
    ///
    /// Raw yuv420p frames are generated here and piped into
    /// `ffmpeg -f rawvideo -pix_fmt yuv420p -s WxH -framerate RATE -i -`. libx264 and libx265
    /// encode at `-crf 10` (and libx264 with `-sc_threshold 0`, so keyframes fall exactly every
    /// `gop` frames); other codecs get only `-g`/`-bf` and whatever `extraArgs` adds.
    /// - Parameters:
    ///   - url: the output file; its extension picks the container. PCM audio needs `.mov` or
    ///     `.mkv` (FFmpeg 5.1's mp4 muxer refuses it).
    ///   - frameCount: number of frames, 1 … 4096; frame n has pts n / frameRate.
    ///   - frameRate: `"30"` or `"30000/1001"`.
    ///   - width: frame width in pixels (even for 4:2:0 codecs), at least 4.
    ///   - height: frame height in pixels, at least 4.
    ///   - gop: keyframe interval in frames (`-g`).
    ///   - bFrames: maximum consecutive B-frames (`-bf`).
    ///   - codec: the ffmpeg video encoder name.
    ///   - extraArgs: output options inserted just before the output path.
    ///   - audio: an audio track lasting ceil(frameCount / frameRate × sampleRate) samples.
    /// - Returns: what was written, including the audio signal to compare against.
    @discardableResult
    public static func makeVideo(
        at url: URL,
        frameCount: Int,
        frameRate: String = "30",
        width: Int = 64,
        height: Int = 36,
        gop: Int = 12,
        bFrames: Int = 0,
        codec: String = "libx264",
        extraArgs: [String] = [],
        audio: AudioSpec? = nil
    ) throws -> IndexedVideo {
        guard (1...maximumIndex + 1).contains(frameCount) else {
            throw SupportError("frameCount \(frameCount) outside 1...\(maximumIndex + 1)")
        }
        guard width >= 4, height >= 4, width <= 8192, height <= 8192 else {
            throw SupportError("frame size \(width)x\(height) outside 4...8192")
        }
        let rate = try parseFrameRate(frameRate)

        let scratch = try TemporaryDirectory(prefix: "reel-indexed")
        var inputs = ["-f", "rawvideo", "-pix_fmt", "yuv420p", "-s", "\(width)x\(height)",
                      "-framerate", frameRate, "-i", "-"]
        var maps = ["-map", "0:v:0"]
        var audioOptions: [String] = []
        var audioSampleCount: Int?
        // What the file is made of, for GeneratedMedia: the frames follow from their count and size, the sound
        // from its samples.
        var key = "indexed \(frameCount) frames"
        if let audio {
            let count = try sampleCount(frames: frameCount, rate: rate, sampleRate: audio.sampleRate)
            let rawAudio = scratch.file("audio.s16le")
            let samples = audio.signal.interleavedS16(count: count, channels: audio.channels)
            try samples.write(to: rawAudio)
            key += ", sound of \(samples.count) bytes, FNV-1a \(GeneratedMedia.digest(samples))"
            inputs += ["-f", "s16le", "-ar", String(audio.sampleRate), "-ac", String(audio.channels),
                       "-i", rawAudio.path]
            maps += ["-map", "1:a:0"]
            audioOptions = ["-c:a", audio.codec] + (audio.codec == "aac" ? ["-b:a", "192k"] : [])
            audioSampleCount = count
        }
        var videoOptions = ["-c:v", codec, "-g", String(gop), "-bf", String(bFrames)]
        if codec == "libx264" || codec == "libx265" {
            videoOptions += ["-crf", "10"]
        }
        if codec == "libx264" {
            videoOptions += ["-sc_threshold", "0"]
        }
        let options = ["-v", "error", "-y"] + inputs + maps + videoOptions + audioOptions + extraArgs
        key += ", " + (options.map { $0.hasPrefix(scratch.url.path) ? "(the sound)" : $0 } + [url.pathExtension])
            .joined(separator: " ")

        let result = try GeneratedMedia.result(key: key, output: url) { file in
            try run("ffmpeg", options + [file.path], environment: nil) { handle in
                for index in 0..<frameCount {
                    try handle.write(contentsOf: frame(index: index, width: width, height: height))
                }
            }
        }
        try result.check("ffmpeg (making \(url.lastPathComponent))")
        scratch.remove()
        return IndexedVideo(
            url: url, frameCount: frameCount, frameRate: rate,
            audioSampleCount: audioSampleCount, audio: audio)
    }

    /// Writes an audio-only file holding `sampleCount` samples of `audio`'s signal.
    public static func makeAudio(at url: URL, sampleCount: Int, audio: AudioSpec) throws {
        guard sampleCount > 0 else {
            throw SupportError("sampleCount must be positive, not \(sampleCount)")
        }
        let bytes = audio.signal.interleavedS16(count: sampleCount, channels: audio.channels)
        var args = ["-v", "error", "-y", "-f", "s16le", "-ar", String(audio.sampleRate),
                    "-ac", String(audio.channels), "-i", "-", "-c:a", audio.codec]
        if audio.codec == "aac" {
            args += ["-b:a", "192k"]
        }
        _ = try runChecked("ffmpeg", args + [url.path], stdin: bytes)
    }

    /// One yuv420p frame (Y plane width×height, then U and V planes of
    /// ceil(width/2)×ceil(height/2)) showing `index`.
    public static func frame(index: Int, width: Int, height: Int) -> Data {
        let chromaSize = ((width + 1) / 2) * ((height + 1) / 2)
        var bytes = [UInt8](repeating: 128, count: width * height + 2 * chromaSize)
        let white = cellValues(index: index)
        for y in 0..<height {
            let row = y * gridSize / height
            for x in 0..<width {
                let column = x * gridSize / width
                bytes[y * width + x] = white[row * gridSize + column] ? 235 : 16
            }
        }
        return Data(bytes)
    }

    /// Reads the index shown in one grayscale or luma picture; -1 when it shows none.
    ///
    /// Each cell's mean over its central half (in both directions) is compared with 128.
    /// The picture counts as indexed only if the four reference cells read white, black,
    /// black, white with a clear margin (above 160 / below 96).
    /// - Parameters:
    ///   - luma: 8-bit samples, row by row, `stride` bytes apart.
    ///   - width: picture width in pixels.
    ///   - height: picture height in pixels.
    ///   - stride: bytes from one row to the next; `nil` means `width`.
    public static func decodeIndex(luma: [UInt8], width: Int, height: Int, stride: Int? = nil) -> Int {
        let rowBytes = stride ?? width
        guard width >= gridSize, height >= gridSize, rowBytes >= width,
              luma.count >= rowBytes * (height - 1) + width else { return -1 }
        var means = [Double]()
        means.reserveCapacity(gridSize * gridSize)
        for row in 0..<gridSize {
            let top = row * height / gridSize, bottom = (row + 1) * height / gridSize
            let y0 = top + (bottom - top) / 4, y1 = max(y0 + 1, bottom - (bottom - top) / 4)
            for column in 0..<gridSize {
                let left = column * width / gridSize, right = (column + 1) * width / gridSize
                let x0 = left + (right - left) / 4, x1 = max(x0 + 1, right - (right - left) / 4)
                var sum = 0
                for y in y0..<y1 {
                    for x in x0..<x1 {
                        sum += Int(luma[y * rowBytes + x])
                    }
                }
                means.append(Double(sum) / Double((y1 - y0) * (x1 - x0)))
            }
        }
        for (cell, isWhite) in referenceCells {
            let ok = isWhite ? means[cell] > 160 : means[cell] < 96
            if !ok { return -1 }
        }
        var index = 0
        for (bit, cell) in bitCells.enumerated() where means[cell] >= 128 {
            index |= 1 << bit
        }
        return index
    }

    /// Decodes the first video stream of `url` and returns each frame's index, in decode
    /// output order, one entry per decoded frame (no frames dropped or duplicated).
    ///
    /// Frames are scaled to `width`×`height` and converted to gray by ffmpeg before reading;
    /// pass the size the file was rendered at. A frame without the pattern gives -1.
    public static func readFrameIndices(of url: URL, width: Int, height: Int) throws -> [Int] {
        let data = try runChecked("ffmpeg", [
            "-v", "error", "-nostdin", "-i", url.path, "-map", "0:v:0", "-fps_mode", "passthrough",
            "-s", "\(width)x\(height)", "-pix_fmt", "gray", "-f", "rawvideo", "-",
        ])
        let frameBytes = width * height
        guard frameBytes > 0, data.count % frameBytes == 0 else {
            throw SupportError("decoded \(data.count) bytes, not a whole number of \(width)x\(height) frames")
        }
        let bytes = [UInt8](data)
        return stride(from: 0, to: bytes.count, by: frameBytes).map { start in
            decodeIndex(luma: Array(bytes[start..<start + frameBytes]), width: width, height: height)
        }
    }

    private static let gridSize = 4

    /// Corner cells with their fixed colours (true = white).
    private static let referenceCells: [(cell: Int, isWhite: Bool)] = [(0, true), (3, false), (12, false), (15, true)]

    /// Cells carrying bits 0…11 of the index.
    private static let bitCells: [Int] = (0..<16).filter { cell in
        !referenceCells.contains { $0.cell == cell }
    }

    private static func cellValues(index: Int) -> [Bool] {
        var white = [Bool](repeating: false, count: gridSize * gridSize)
        for (cell, isWhite) in referenceCells {
            white[cell] = isWhite
        }
        for (bit, cell) in bitCells.enumerated() {
            white[cell] = (index >> bit) & 1 == 1
        }
        return white
    }
}

/// What `IndexedMedia.makeVideo` wrote.
public struct IndexedVideo: Sendable {
    /// The file.
    public let url: URL
    /// Number of video frames; frame n shows index n.
    public let frameCount: Int
    /// Frames per second as numerator and denominator.
    public let frameRate: (numerator: Int, denominator: Int)
    /// Audio samples per channel, or nil without audio.
    public let audioSampleCount: Int?
    /// The audio track's description, or nil without audio.
    public let audio: AudioSpec?

    /// Duration of the video in seconds (frameCount / frameRate), for display and tolerances.
    public var duration: Double {
        Double(frameCount) * Double(frameRate.denominator) / Double(frameRate.numerator)
    }
}

/// Parses `"30"` or `"30000/1001"` into a positive numerator and denominator.
func parseFrameRate(_ text: String) throws -> (numerator: Int, denominator: Int) {
    let parts = text.split(separator: "/", omittingEmptySubsequences: false)
    guard (1...2).contains(parts.count), let numerator = Int(parts[0]),
          let denominator = parts.count == 2 ? Int(parts[1]) : 1,
          numerator > 0, denominator > 0, numerator <= 1_000_000, denominator <= 1_000_000
    else {
        throw SupportError("frame rate \"\(text)\" is not N or N/D with positive integers")
    }
    return (numerator, denominator)
}

/// ceil(frames × denominator × sampleRate / numerator).
private func sampleCount(frames: Int, rate: (numerator: Int, denominator: Int), sampleRate: Int) throws -> Int {
    guard sampleRate > 0, sampleRate <= 1_000_000 else {
        throw SupportError("sample rate \(sampleRate) outside 1...1000000")
    }
    let (product, overflow) = frames.multipliedReportingOverflow(by: rate.denominator * sampleRate)
    guard !overflow else {
        throw SupportError("audio length overflows")
    }
    return (product + rate.numerator - 1) / rate.numerator
}
