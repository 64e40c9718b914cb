import Foundation
import ReelTestSupport
import Testing

/// Colour that is right in every player: outputs are tagged BT.709 video range, and sources are read by their own
/// tags (BT.601 SD, BT.709, full range, HDR tone-mapped) or, untagged, by the size rule players use. Colour bars in the output,
/// turned into R′G′B′ by the ffmpeg CLI from the output's tags, match the bars of the source turned into R′G′B′
/// from the source's tags, within a few levels.
@Suite struct ColorTagTests {
    struct Source: Sendable, CustomStringConvertible {
        let name: String
        let width: Int, height: Int
        /// ffmpeg options after the filter graph that codes and tags the source.
        let filter: String
        let tags: [String]
        /// How the ffmpeg CLI reads the source for reference (HDR: the usual tone-mapping chain).
        var reference: String? = nil
        var codec = ["-c:v", "libx264", "-qp", "0"]
        var description: String { name }
    }

    static let sources = [
        Source(name: "SD tagged BT.601", width: 320, height: 240, filter: "format=yuv420p",
               tags: ["-colorspace", "smpte170m", "-color_primaries", "smpte170m", "-color_trc", "smpte170m"]),
        Source(name: "SD untagged", width: 320, height: 240, filter: "format=yuv420p", tags: []),
        Source(name: "SD full range", width: 320, height: 240, filter: "scale=out_range=full,format=yuvj420p",
               tags: ["-colorspace", "smpte170m", "-color_range", "pc"]),
        Source(name: "SD full range yuv420p", width: 320, height: 240, filter: "scale=out_range=full,format=yuv420p",
               tags: ["-color_range", "pc"]),
        Source(name: "HD tagged BT.709", width: 1280, height: 720,
               filter: "scale=out_color_matrix=bt709,format=yuv420p",
               tags: ["-colorspace", "bt709", "-color_primaries", "bt709", "-color_trc", "bt709"]),
        Source(name: "HDR PQ 10-bit", width: 320, height: 240,
               filter: "zscale=tin=bt709:min=bt709:pin=bt709:rin=tv:t=smpte2084:m=bt2020nc:p=bt2020:r=tv:npl=100,"
                   + "format=yuv420p10le",
               tags: ["-color_trc", "smpte2084", "-colorspace", "bt2020nc", "-color_primaries", "bt2020"],
               reference: "zscale=t=linear:npl=100,format=gbrpf32le,zscale=p=bt709,tonemap=tonemap=hable:desat=0,"
                   + "zscale=t=bt709:m=bt709:r=tv,format=yuv420p",
               codec: ["-c:v", "libx265", "-x265-params", "log-level=none:lossless=1"]),
    ]

    /// The R′G′B′ of the centres of the seven top bars of `url`'s first frame.
    static func bars(_ url: URL, width: Int, height: Int, filter: String? = nil) throws -> [[Int]] {
        let data = try Spine.checked("ffmpeg", ["-v", "error", "-i", url.path, "-frames:v", "1"]
                                        + (filter.map { ["-vf", $0] } ?? []) + ["-f", "rawvideo", "-pix_fmt", "rgb24", "-"])
        let bytes = [UInt8](data)
        return (0..<7).map { bar in
            let x = (2 * bar + 1) * width / 14, y = height / 3
            let index = (y * width + x) * 3
            return (0..<3).map { Int(bytes[index + $0]) }
        }
    }

    /// An untagged SD source is BT.601 and is recoded to BT.709: greys have the same luma in both, so every level
    /// comes through exactly (libswscale's fixed-point conversion loses one level).
    @Test func greysKeepTheirLevelThroughTheMatrixChange() throws {
        let folder = try TemporaryDirectory(prefix: "reel-colour-grey")
        _ = try Spine.checked("ffmpeg", ["-v", "error", "-f", "lavfi", "-i",
                                         "color=c=black:s=320x240:r=30:d=1,format=yuv420p,geq=lum='16+7*N':cb=128:cr=128",
                                         "-c:v", "libx264", "-qp", "0", folder.file("grey.mkv").path])
        let result = try Spine.render("""
            { "reel": 1, "output": { "path": "out.mkv", "size": [320, 240], "frameRate": 30,
                                     "video": { "crf": 0, "encoderPreset": "ultrafast" }, "audio": false },
              "assets": { "grey": { "path": "grey.mkv" } },
              "timeline": { "clips": [ { "asset": "grey" } ] } }
            """, in: folder)
        #expect(result.status == 0, "\(result.stderrText)")
        let planes = [UInt8](try Spine.checked("ffmpeg", ["-v", "error", "-i", folder.file("out.mkv").path,
                                                          "-f", "rawvideo", "-pix_fmt", "yuv420p", "-"]))
        let frameSize = 320 * 240 * 3 / 2
        #expect(planes.count == 30 * frameSize)
        for n in 0..<min(30, planes.count / frameSize) {
            let frame = planes[(n * frameSize)..<((n + 1) * frameSize)]
            let y = Set(frame.prefix(320 * 240)), chroma = Set(frame.suffix(320 * 240 / 2))
            #expect(y == [UInt8(16 + 7 * n)] && chroma == [128], "frame \(n): Y \(y.sorted()), Cb/Cr \(chroma.sorted())")
        }
    }

    @Test(arguments: sources)
    func barsKeepTheirColour(source: Source) throws {
        let folder = try TemporaryDirectory(prefix: "reel-colour")
        let input = folder.file("bars.mkv")
        _ = try Spine.checked("ffmpeg", ["-v", "error", "-f", "lavfi", "-i",
                                         "smptebars=s=\(source.width)x\(source.height):d=1:r=30",
                                         "-vf", source.filter] + source.codec + source.tags + [input.path])
        let result = try Spine.render("""
            { "reel": 1, "output": { "path": "out.mkv", "size": [\(source.width), \(source.height)], "frameRate": 30,
                                     "video": { "crf": 0, "encoderPreset": "ultrafast" }, "audio": false },
              "assets": { "bars": { "path": "bars.mkv" } },
              "timeline": { "clips": [ { "asset": "bars", "duration": 0.5 } ] } }
            """, in: folder)
        #expect(result.status == 0, "\(result.stderrText)")
        let output = folder.file("out.mkv")

        let tags = try Spine.checked("ffprobe", ["-v", "error", "-select_streams", "v", "-show_entries",
                                                 "stream=color_range,color_space,color_primaries,color_transfer",
                                                 "-of", "csv=p=0", output.path])
        #expect(String(decoding: tags, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
                == "tv,bt709,bt709,bt709")
        let expected = try Self.bars(input, width: source.width, height: source.height, filter: source.reference)
        let actual = try Self.bars(output, width: source.width, height: source.height)
        let worst = zip(expected, actual).map { pair in zip(pair.0, pair.1).map { abs($0 - $1) }.max() ?? 0 }.max() ?? 0
        #expect(worst <= 4, "bars \(actual), expected \(expected)")

        // Thumbnails are R′G′B′ (PNG) or BT.601 full range (JPEG), each read as players read them.
        for (name, tolerance) in [("t.png", 4), ("t.jpg", 8)] {
            let picture = folder.file(name)
            let made = try run(Spine.reel().path, ["thumbnail", folder.file("project.json").path, "--at", "0.1",
                                                   "-o", picture.path])
            #expect(made.status == 0, "\(made.stderrText)")
            let bars = try Self.bars(picture, width: source.width, height: source.height)
            let off = zip(expected, bars).map { pair in zip(pair.0, pair.1).map { abs($0 - $1) }.max() ?? 0 }.max() ?? 0
            #expect(off <= tolerance, "\(name): bars \(bars), expected \(expected)")
        }
    }
}
