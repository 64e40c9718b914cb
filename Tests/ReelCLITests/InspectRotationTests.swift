import Foundation
import ReelTestSupport
import Testing

/// `reel inspect` reports a stream's rotation as ffprobe does (SPEC §8): the display matrix's angle, so a file
/// tagged `rotate=270` reads -90 and one tagged 180 reads -180.
@Suite struct InspectRotationTests {
    @Test(arguments: [0, 90, 180, 270])
    func rotationMatchesFFprobe(tag: Int) throws {
        let folder = try TemporaryDirectory(prefix: "reel-rotation")
        let reel = try builtExecutable(named: "reel")
        let plain = folder.file("plain.mp4"), rotated = folder.file("rotated.mp4")
        _ = try IndexedMedia.makeVideo(at: plain, frameCount: 3)
        _ = try runChecked("ffmpeg", ["-v", "error", "-i", plain.path, "-c", "copy",
                                      "-metadata:s:v", "rotate=\(tag)", rotated.path])
        let probed = try runChecked("ffprobe", ["-v", "error", "-select_streams", "v", "-show_entries",
                                                "stream_side_data=rotation", "-of", "csv=p=0", rotated.path])
        let ffprobeValue = Int(String(decoding: probed, as: UTF8.self)
            .split(whereSeparator: \.isNewline).first.map { $0.trimmingCharacters(in: .whitespaces) } ?? "") ?? 0

        let result = try run(reel.path, ["inspect", rotated.path, "--json"])
        #expect(result.status == 0, "\(result.stderrText)")
        let object = try #require(try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any])
        let streams = try #require(object["streams"] as? [[String: Any]])
        let video = try #require(streams.first { $0["type"] as? String == "video" })
        #expect(video["rotation"] as? Int == ffprobeValue)
        #expect(ffprobeValue == [0: 0, 90: 90, 180: -180, 270: -90][tag])
    }
}
