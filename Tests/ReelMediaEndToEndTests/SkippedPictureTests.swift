import Foundation
@testable import ReelMedia
import ReelTestSupport
import ReelTime
import Testing

/// `VideoReader` leaves out H.264 pictures nothing refers to when they cannot be shown, and still answers every
/// query with the right frame: after seeks onto B-frames and between them, and for a clip that shows every third
/// frame.
@Suite struct SkippedPictureTests {
    static func index(of frame: VideoFrame) -> Int {
        let luma = Array(UnsafeBufferPointer(start: frame.plane(0), count: frame.stride(0) * frame.height))
        return IndexedMedia.decodeIndex(luma: luma, width: frame.width, height: frame.height, stride: frame.stride(0))
    }

    @Test(arguments: ["mp4", "mkv"])
    func everyQueryGetsItsFrame(container: String) throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let url = folder.file("b.\(container)")
        // GOPs of 48 with B-pyramids: a seek lands up to 47 pictures before the one wanted.
        try IndexedMedia.makeVideo(at: url, frameCount: 150, gop: 48, bFrames: 3)
        var leftOut = 0
        // In points on and next to B-frames, each read with a fresh reader (a clip's first query is a seek), then
        // ten frames forward; a query half a frame late shows the same frame.
        for start in [5, 50, 51, 53, 70, 95, 97, 99, 120, 146] {
            let reader = try VideoReader(path: url.path, streamIndex: 0, policy: .localFilesOnly)
            for n in start..<min(start + 10, 150) {
                #expect(Self.index(of: try reader.frame(at: seconds(Int64(n), 30))) == n, "frame \(n) from \(start)")
                #expect(Self.index(of: try reader.frame(at: seconds(Int64(2 * n + 1), 60))) == n, "after frame \(n)")
            }
            leftOut += reader.picturesLeftOut
        }
        // A clip at three times the speed, and a seek back to the start.
        let fast = try VideoReader(path: url.path, streamIndex: 0, policy: .localFilesOnly)
        for n in stride(from: 0, to: 150, by: 3) {
            #expect(Self.index(of: try fast.frame(at: seconds(Int64(n), 30))) == n, "frame \(n) at 3×")
        }
        #expect(Self.index(of: try fast.frame(at: seconds(Int64(1), 30))) == 1)
        leftOut += fast.picturesLeftOut
        #expect(leftOut > 50, "pictures left out: \(leftOut)")
    }
}
