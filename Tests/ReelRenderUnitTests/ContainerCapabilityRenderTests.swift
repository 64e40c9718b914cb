import ReelCodecs
import ReelMedia
import ReelModel
@testable import ReelRender
import Testing

/// The one container ↔ codec table: FFmpeg's answers, read by the project loader, and reel's built-in table, which
/// answers without FFmpeg; they must not drift apart.
@Suite struct ContainerCapabilityRenderTests {
    @Test func ffmpegCanWriteEveryPairTheBuiltInTableOffers() {
        var refused: [String] = []
        for container in ContainerFormat.allCases {
            let muxer = OutputEncoding.muxerName(for: container)
            for codec in container.videoCodecs where !Muxer.canHold(formatName: muxer, video: codec, audio: nil) {
                refused.append("\(container.rawValue) (\(muxer)) + \(codec.rawValue)")
            }
            for codec in container.audioCodecs where !Muxer.canHold(formatName: muxer, video: nil, audio: codec) {
                refused.append("\(container.rawValue) (\(muxer)) + \(codec.rawValue)")
            }
        }
        #expect(refused == [], "FFmpeg's muxers cannot write pairs reel's built-in table offers")
        #expect(ContainerCapabilities.ffmpeg == ContainerCapabilities.builtIn)
    }

    @Test func anImageSequencesMuxerHoldsTheStillCodecs() {
        for container: ContainerFormat in [.png, .jpg, .webp] {
            let muxer = OutputEncoding.muxerName(for: container, imageSequence: true)
            for codec in container.videoCodecs {
                #expect(Muxer.canHold(formatName: muxer, video: codec, audio: nil), "\(muxer) + \(codec.rawValue)")
            }
        }
    }

    /// The same mistake in a written project and in one built in code gives the same diagnostic (exit 65 both).
    @Test func aWrittenAndABuiltProjectGetTheSameContainerDiagnostic() throws {
        let text = #"{"reel": 1, "output": {"path": "o.webm", "size": [64, 36], "frameRate": 30, "video": {"codec": "h264"}, "audio": {"codec": "aac"}, "end": 1}, "timeline": {}}"#
        let fromText = ProjectLoader.load(Array(text.utf8), baseDirectory: "/projects", probe: false)
        #expect(fromText.compiled == nil)
        var project = try #require(ProjectReader.read(#"{"reel": 1, "output": {"path": "o.webm", "size": [64, 36], "frameRate": 30, "end": 1}, "timeline": {}}"#,
                                                      baseDirectory: "/projects").project)
        project.output.video.codec = .h264
        project.output.audio?.codec = .aac
        let inCode = ProjectLoader.load(project, probe: false)
        #expect(inCode.compiled == nil)
        let unplaced = fromText.diagnostics.map { diagnostic in
            var copy = diagnostic
            copy.position = nil
            return copy
        }
        #expect(inCode.diagnostics.map(\.humanText) == unplaced.map(\.humanText))
        #expect(inCode.diagnostics.map(\.message) == ["webm cannot hold h264 video", "webm cannot hold aac audio"])
        #expect(Set(inCode.diagnostics.map(\.category)) == [.invalid])
    }
}
