import Foundation
import ReelMedia
import ReelTime
import Testing

@Suite struct ProbeTests {
    @Test func describesAnMP4WithVideoAndAudio() throws {
        let fixtures = try Fixtures.shared.get()
        let info = try MediaProbe.probe(path: fixtures.movie, policy: .localFilesOnly)
        #expect(info.formatName.hasPrefix("mov,mp4"))
        #expect(info.startTime == .zero)
        #expect(info.streams.count == 2)
        let video = try #require(info.bestVideoStream)
        #expect(video.index == 0)
        #expect(video.type == .video)
        #expect(video.codec == "h264")
        #expect(video.width == 64 && video.height == 36)
        #expect(video.displayWidth == 64 && video.displayHeight == 36)
        #expect(video.rotation == 0)
        #expect(video.pixelFormat == "yuv420p")
        #expect(video.frameRate == Rational(30))
        #expect(video.averageFrameRate == Rational(30))
        #expect(video.frameCount == 60)
        #expect(video.start == .zero)
        #expect(video.duration == seconds(2))
        #expect(!video.isAttachedPicture)
        let audio = try #require(info.bestAudioStream)
        #expect(audio.index == 1)
        #expect(audio.type == .audio)
        #expect(audio.codec == "aac")
        #expect(audio.sampleRate == 48000)
        #expect(audio.channels == 2)
        #expect(audio.channelLayout == "stereo")
        #expect(audio.width == 0)
        #expect(audio.frameRate == nil)
        #expect(audio.start == .zero)
        #expect(audio.timeBase == Rational(1, 48000))
    }

    @Test(arguments: [("90", 90), ("180", 180), ("270", 270), ("-90", 270)])
    func reportsRotation(tag: String, expected: Int) throws {
        let fixtures = try Fixtures.shared.get()
        let rotated = try scratchPath("rotated.mp4")
        try ffmpeg(["-i", fixtures.movie, "-c", "copy", "-metadata:s:v:0", "rotate=\(tag)", rotated])
        let video = try #require(try MediaProbe.probe(path: rotated, policy: .localFilesOnly).bestVideoStream)
        #expect(video.rotation == expected)
        #expect(video.width == 64 && video.height == 36)
        let quarter = expected % 180 != 0
        #expect(video.displayWidth == (quarter ? 36 : 64))
        #expect(video.displayHeight == (quarter ? 64 : 36))
    }

    /// Anamorphic pictures (issue 33): the probe says the sample aspect ratio and a display size in square pixels,
    /// turned by the rotation, and the reader hands out pictures of that width.
    @Test(arguments: [("12/11", 0, Rational(12, 11), 384), ("64/45", 90, Rational(64, 45), 500), ("1", 0, Rational(1), 352)])
    func anamorphicStreamsHaveASquarePixelDisplaySize(sar: String, rotate: Int, expected: Rational, width: Int) throws {
        let name = "sar-\(sar.replacingOccurrences(of: "/", with: "_"))-\(rotate)"
        let encoded = try scratchPath(name + "-encoded.mp4"), path = try scratchPath(name + ".mp4")
        try ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=352x288:rate=25:duration=0.2", "-vf", "setsar=\(sar)",
                    "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", encoded])
        // The display matrix is written only when copying (an encode drops the rotate tag).
        try ffmpeg(["-i", encoded, "-c", "copy", "-metadata:s:v:0", "rotate=\(rotate)", path])
        let video = try #require(try MediaProbe.probe(path: path, policy: .localFilesOnly).bestVideoStream)
        #expect(video.sampleAspectRatio == expected)
        #expect(video.width == 352 && video.height == 288)
        // 352 × 64/45 = 500.6, rounded to the nearest even width.
        #expect(video.displayWidth == (rotate == 0 ? width : 288) && video.displayHeight == (rotate == 0 ? 288 : width))
        let reader = try VideoReader(path: path, streamIndex: video.index, policy: .localFilesOnly)
        let first = try reader.frame(at: .zero)
        #expect(first.width == width && first.height == 288)
        let later = try reader.frame(at: Time(value: 3, timescale: 25))
        #expect(later.width == width && later.time == Time(value: 3, timescale: 25))
    }

    @Test(arguments: [(352, Rational(12, 11), 384), (800, Rational(64, 45), 1138), (720, Rational(32, 27), 854),
                      (64, Rational(1), 64), (63, Rational(1), 63), (1, Rational(1, 100), 2)])
    func squarePixelWidthsRoundToEven(width: Int, sar: Rational, expected: Int) {
        #expect(StreamInfo.squarePixelWidth(width, sampleAspectRatio: sar) == expected)
    }

    @Test func makesMPEGTSTimesRelativeToTheMediaStart() throws {
        let fixtures = try Fixtures.shared.get()
        let info = try MediaProbe.probe(path: fixtures.grayTS, policy: .localFilesOnly)
        #expect(info.formatName == "mpegts")
        #expect(info.startTime > seconds(1))
        let video = try #require(info.bestVideoStream)
        #expect(video.start == .zero)
        #expect(video.frameRate == Rational(24))
    }

    @Test func skipsAttachedPicturesForTheBestVideoStream() throws {
        let fixtures = try Fixtures.shared.get()
        let cover = try scratchPath("cover.png")
        try ffmpeg(["-f", "lavfi", "-i", "color=red:size=16x16", "-frames:v", "1", cover])
        let tagged = try scratchPath("tagged.mp4")
        try ffmpeg(["-i", fixtures.rampWAV, "-i", cover, "-map", "0:a", "-map", "1:v", "-c:a", "aac",
                    "-c:v", "png", "-disposition:v:0", "attached_pic", tagged])
        let info = try MediaProbe.probe(path: tagged, policy: .localFilesOnly)
        let picture = try #require(info.streams.first { $0.type == .video })
        #expect(picture.isAttachedPicture)
        #expect(info.bestVideoStream == nil)
        #expect(info.bestAudioStream?.index == 0)
    }

    @Test(arguments: ["http://example.com/a.mp4", "concat:a.mp4|b.mp4", "data:video/mp4;base64,AAAA",
                      "file:/tmp/a.mp4", "pipe:0", "tcp://localhost:1"])
    func refusesProtocols(path: String) throws {
        let error = #expect(throws: MediaError.self) { try MediaProbe.probe(path: path, policy: .localFilesOnly) }
        #expect(error?.kind == .refusedProtocol)
        #expect(error?.message.contains("--allow-protocols") == true)
        #expect(error?.path == path)
    }

    @Test func opensAFileURLWhenTheFileProtocolIsAllowed() throws {
        let fixtures = try Fixtures.shared.get()
        let policy = MediaPolicy(allowedProtocols: ["file"])
        let info = try MediaProbe.probe(path: "file:" + fixtures.movie, policy: policy)
        #expect(info.streams.count == 2)
    }

    @Test func readsNamesWithAColonThroughARelativePath() throws {
        let fixtures = try Fixtures.shared.get()
        let folder = try scratchFolder()
        let name = "clip:\(UUID().uuidString.prefix(6)).mp4"
        try FileManager.default.copyItem(atPath: fixtures.movie, toPath: folder + "/" + name)
        let previous = FileManager.default.currentDirectoryPath
        // Relative paths resolve against the working directory; only this test changes it.
        #expect(FileManager.default.changeCurrentDirectoryPath(folder))
        defer { _ = FileManager.default.changeCurrentDirectoryPath(previous) }
        let info = try MediaProbe.probe(path: "./" + name, policy: .localFilesOnly)
        #expect(info.streams.count == 2)
        let error = #expect(throws: MediaError.self) { try MediaProbe.probe(path: name, policy: .localFilesOnly) }
        #expect(error?.kind == .refusedProtocol)
    }

    @Test func refusesDirectoriesAndFIFOsWithoutOpeningThem() throws {
        let folder = try scratchPath("folder")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        #expect(throws: MediaError.self) { try MediaProbe.probe(path: folder, policy: .localFilesOnly) }
        let fifo = try scratchPath("pipe.mp4")
        #expect(mkfifo(fifo, 0o644) == 0)
        let started = Date()
        let error = #expect(throws: MediaError.self) { try VideoReader(path: fifo, streamIndex: 0, policy: .localFilesOnly) }
        #expect(error?.kind == .notRegularFile)
        #expect(Date().timeIntervalSince(started) < 1)
        let directoryError = #expect(throws: MediaError.self) {
            try AudioReader(path: folder, streamIndex: 0, policy: .localFilesOnly)
        }
        #expect(directoryError?.kind == .notRegularFile)
        let device = #expect(throws: MediaError.self) { try MediaProbe.probe(path: "/dev/zero", policy: .localFilesOnly) }
        #expect(device?.kind == .notRegularFile)
    }

    @Test func acceptsSymlinksToRegularFiles() throws {
        let fixtures = try Fixtures.shared.get()
        let link = try scratchPath("link.mp4")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: fixtures.movie)
        #expect(try MediaProbe.probe(path: link, policy: .localFilesOnly).streams.count == 2)
    }

    @Test func reportsMissingFiles() throws {
        let path = try scratchPath("absent.mp4")
        let error = #expect(throws: MediaError.self) { try MediaProbe.probe(path: path, policy: .localFilesOnly) }
        #expect(error?.kind == .missing)
        #expect(error?.description == "\(path): no such file")
        // Found missing before FFmpeg was asked.
        #expect(error?.code == nil && error?.function == nil)
    }

    @Test(arguments: [
        ("empty.mp4", ""),
        ("garbage.mp4", String(repeating: "not a movie at all \u{1}\u{2}\u{3}", count: 200)),
        ("list.m3u8", "#EXTM3U\n#EXT-X-TARGETDURATION:10\n#EXTINF:10,\nsegment.ts\n#EXT-X-ENDLIST\n"),
        ("list.ffconcat", "ffconcat version 1.0\nfile 'a.mp4'\n"),
        ("notes.txt", "hello\n"),
    ])
    func refusesFilesThatAreNotMedia(name: String, contents: String) throws {
        let path = try scratchPath(name)
        try contents.write(toFile: path, atomically: true, encoding: .utf8)
        let error = #expect(throws: MediaError.self) { try MediaProbe.probe(path: path, policy: .localFilesOnly) }
        #expect(error?.kind == .notMedia)
        // The failing FFmpeg call and its AVERROR code come along, outside the message.
        #expect(error?.function == "avformat_open_input" || error?.function == "avformat_find_stream_info")
        #expect((error?.code ?? 0) < 0)
        #expect(error.map { !$0.description.contains("avformat") } == true)
    }

    @Test(.enabled(if: geteuid() != 0, "permission bits do not bind root, so no file is unreadable to it"))
    func refusesUnreadableFiles() throws {
        let fixtures = try Fixtures.shared.get()
        let path = try scratchPath("locked.mp4")
        try FileManager.default.copyItem(atPath: fixtures.movie, toPath: path)
        #expect(chmod(path, 0) == 0)
        let error = #expect(throws: MediaError.self) { try MediaProbe.probe(path: path, policy: .localFilesOnly) }
        #expect(error?.kind == .unreadable)
    }

    @Test func refusesStreamsOfTheWrongType() throws {
        let fixtures = try Fixtures.shared.get()
        let error = #expect(throws: MediaError.self) {
            try VideoReader(path: fixtures.movie, streamIndex: 1, policy: .localFilesOnly)
        }
        #expect(error?.kind == .noSuchStream)
        let missing = #expect(throws: MediaError.self) {
            try AudioReader(path: fixtures.movie, streamIndex: 7, policy: .localFilesOnly)
        }
        #expect(missing?.kind == .noSuchStream)
    }

    @Test(arguments: [3, 2, 10])
    func neverTrapsOnTruncatedFiles(divisor: Int) throws {
        let fixtures = try Fixtures.shared.get()
        let faststart = try scratchPath("fast.mp4")
        try ffmpeg(["-i", fixtures.movie, "-c", "copy", "-movflags", "+faststart", faststart])
        let data = try Data(contentsOf: URL(fileURLWithPath: faststart))
        let path = try scratchPath("truncated.mp4")
        try data.prefix(data.count / divisor).write(to: URL(fileURLWithPath: path))
        do {
            let reader = try VideoReader(path: path, streamIndex: 0, policy: .localFilesOnly)
            for index in 0..<70 { _ = try reader.frame(at: seconds(Int64(index), 30)) }
            let audio = try AudioReader(path: path, streamIndex: 1, policy: .localFilesOnly)
            var left = [Float](repeating: 1, count: 4800), right = left
            try left.withUnsafeMutableBufferPointer { l in
                try right.withUnsafeMutableBufferPointer { r in
                    for block in 0..<25 { try audio.read(from: Int64(block) * 4800, count: 4800, into: [l.baseAddress!, r.baseAddress!]) }
                }
            }
        } catch let error as MediaError {
            #expect([.notMedia, .corrupt, .io].contains(error.kind))
        }
    }
}
