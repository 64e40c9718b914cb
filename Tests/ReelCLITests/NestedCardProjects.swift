import Foundation
import ReelTestSupport
import Testing

/// What the suites that render nested-composition cards through the binary share: a folder, the binary, and the
/// lossless card projects they compare.
protocol NestedCardProjects {
    var folder: TemporaryDirectory { get }
    var reel: URL { get }
}

extension NestedCardProjects {
    func write(_ name: String, _ text: String) throws {
        try text.write(to: folder.file(name), atomically: true, encoding: .utf8)
    }

    /// `reel render name -o out` in the test folder; its status must be 0.
    func render(_ name: String, _ out: String) throws {
        let result = try run(reel.path, ["render", folder.file(name).path, "-o", folder.file(out).path, "--force", "--quiet"])
        try #require(result.status == 0, "\(name): \(result.stderrText)")
    }

    /// A project `width`×`height` at 25 fps, lossless, silent, with `body` (assets, timeline, …) inside.
    func project(_ width: Int, _ height: Int, _ body: String) -> String {
        """
        {"reel": 1, "output": {"size": [\(width), \(height)], "frameRate": 25, "video": {"crf": 0}, "audio": false},
         \(body)}
        """
    }

    /// The card at `k` × 160×120: a navy ground, a title and a rounded, stroked rectangle, every length × `k`.
    func card(_ k: Int) -> String {
        project(160 * k, 120 * k, """
            "assets": {"navy": {"color": "#1E2A50"}},
            "timeline": {"clips": [{"asset": "navy", "duration": 1}],
                         "titles": [{"text": "CARD 38", "start": 0, "duration": 1, "position": [0.5, 0.3], "size": \(22 * k)}],
                         "overlays": [{"shape": {"type": "rectangle", "size": [\(100 * k), \(30 * k)], "cornerRadius": \(9 * k),
                                                 "fill": "#FFCC00", "stroke": {"color": "#FFFFFF", "width": \(2 * k)}},
                                       "start": 0, "duration": 1, "position": [0.5, 0.72]}]}
            """)
    }

    /// Luma PSNR (dB) of each picture of `a` against the same picture of `b`, in order (infinity where identical).
    func lumaPSNR(_ a: String, _ b: String, scaling: String = "null") throws -> [Double] {
        let result = try run("ffmpeg", ["-v", "error", "-i", folder.file(a).path, "-i", folder.file(b).path,
                                        "-lavfi", "[0:v]\(scaling)[a];[a][1:v]psnr=stats_file=-", "-f", "null", "-"])
        try #require(result.status == 0, "\(result.stderrText)")
        let values = result.stdoutText.split(whereSeparator: \.isNewline).compactMap { line in
            line.split(separator: " ").first { $0.hasPrefix("psnr_y:") }.map { field in
                let value = field.dropFirst("psnr_y:".count)
                return value == "inf" ? Double.infinity : Double(value) ?? 0
            }
        }
        try #require(!values.isEmpty, "no PSNR from ffmpeg: \(result.stdoutText.prefix(300))")
        return values
    }
}
