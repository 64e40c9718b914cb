import ReelCodecs
import ReelModel
import Testing

/// The container ↔ codec table the reader checks `output` against is the one it is given.
@Suite struct ContainerCapabilitiesTests {
    /// A table in which MP4 cannot hold HEVC nor Opus, as an FFmpeg without those muxer entries would answer.
    static let narrowed = ContainerCapabilities.builtIn.keeping(
        video: { container, codec in !(container == .mp4 && codec == .hevc) },
        audio: { container, codec in !(container == .mp4 && codec == .opus) })

    @Test func builtInTableIsTheOfferOfEachContainer() {
        for container in ContainerFormat.allCases {
            #expect(ContainerCapabilities.builtIn.videoCodecs(in: container) == container.videoCodecs)
            #expect(ContainerCapabilities.builtIn.audioCodecs(in: container) == container.audioCodecs)
        }
        #expect(ContainerCapabilities.builtIn.canHold(.webm, video: .vp9))
        #expect(!ContainerCapabilities.builtIn.canHold(.webm, video: .h264))
        #expect(!ContainerCapabilities.builtIn.canHold(.wav, audio: .aac))
    }

    @Test func keepingDropsPairsAndKeepsTheOrderOfPreference() {
        #expect(Self.narrowed.videoCodecs(in: .mp4) == [.h264, .av1, .vp9])
        #expect(Self.narrowed.audioCodecs(in: .mp4) == [.aac])
        #expect(Self.narrowed.videoCodecs(in: .mkv) == ContainerFormat.mkv.videoCodecs)
        #expect(Self.narrowed != .builtIn)
    }

    @Test func theReaderChecksTheTableItIsGiven() {
        let text = #"{"reel": 1, "output": {"path": "o.mp4", "video": {"codec": "hevc"}, "audio": {"codec": "opus"}, "end": 1}, "timeline": {}}"#
        let builtIn = ProjectReader.readDocument(Array(text.utf8), baseDirectory: "/projects")
        #expect(builtIn.diagnostics.isEmpty)
        let narrowed = ProjectReader.readDocument(Array(text.utf8), baseDirectory: "/projects",
                                                  capabilities: Self.narrowed)
        #expect(narrowed.diagnostics.map(\.path.description) == ["$.output.video.codec", "$.output.audio.codec"])
        #expect(narrowed.diagnostics.map(\.message) == ["mp4 cannot hold hevc video", "mp4 cannot hold opus audio"])
        #expect(narrowed.diagnostics.map(\.hint) == ["use one of h264, av1, vp9", "use one of aac"])
    }

    @Test func theCommandLinesContainerIsCheckedAgainstTheSameTable() throws {
        let text = #"{"reel": 1, "output": {"path": "o.mkv", "video": {"codec": "hevc"}, "end": 1}, "timeline": {}}"#
        let project = try #require(ProjectReader.read(text, baseDirectory: "/projects").project)
        #expect(project.output.replacingPath("o.mp4").diagnostics.isEmpty)
        #expect(project.output.replacingPath("o.mp4", capabilities: Self.narrowed).diagnostics.map(\.message)
                == ["mp4 cannot hold hevc video"])
        #expect(project.output.replacingFormat(.mp4, capabilities: Self.narrowed).diagnostics.map(\.message)
                == ["mp4 cannot hold hevc video"])
    }

    @Test func aProjectBuiltInCodeGetsTheReadersDiagnostics() throws {
        let text = #"{"reel": 1, "output": {"path": "o.webm", "video": {"codec": "h264"}, "end": 1}, "outputs": [{"path": "small.wav", "audio": {"codec": "aac"}}], "timeline": {}}"#
        let read = ProjectReader.readDocument(Array(text.utf8), baseDirectory: "/projects")
        var output = OutputSettings(path: "o.webm")
        output.video.codec = .h264
        var further = OutputSettings(path: "small.wav")
        further.audio?.codec = .aac
        var built = try #require(ProjectReader.read(#"{"reel": 1, "output": {"end": 1}, "timeline": {}}"#,
                                                    baseDirectory: "/projects").project)
        built.output = output
        built.outputs = [further]
        let inCode = built.containerDiagnostics()
        #expect(inCode.map(\.humanText) == read.diagnostics.map { diagnostic in
            var unplaced = diagnostic
            unplaced.position = nil
            return unplaced.humanText
        })
        #expect(inCode.map(\.path.description) == ["$.output.video.codec", "$.outputs[0].audio.codec"])
    }
}
