import Foundation
import ReelMedia
import ReelTestSupport
import ReelTime
import Testing

/// Copies the audio and video streams of `source` packet by packet into a new `format` file; returns its path.
func remux(_ source: String, format: String, fileExtension: String) throws -> String {
    let output = try scratchPath("copy.\(fileExtension)")
    let reader = try PacketReader(path: source, policy: .localFilesOnly)
    let muxer = try Muxer(destination: .file(output), formatName: format, metadata: [], faststart: true)
    var copies: [Int: MuxerStream] = [:]
    for stream in reader.info.streams where stream.type == .video || stream.type == .audio {
        copies[stream.index] = try muxer.addStream(copying: stream.index, of: reader)
    }
    try muxer.start()
    let packet = try Packet()
    while try reader.read(into: packet) {
        if let copy = copies[packet.streamIndex] { try muxer.write(packet, to: copy) }
    }
    try muxer.finish()
    return output
}

/// ffprobe's codec name and decoded frame count (`-count_frames`) of stream `stream` (`v:0`, `a:0`).
func countedFrames(_ path: String, stream: String) throws -> [String: String] {
    let result = try run("ffprobe", ["-v", "error", "-select_streams", stream, "-count_frames",
                                     "-show_entries", "stream=codec_name,nb_read_frames",
                                     "-of", "default=noprint_wrappers=1", path])
    var values: [String: String] = [:]
    for line in result.stdoutText.split(separator: "\n") {
        let parts = line.split(separator: "=", maxSplits: 1)
        if parts.count == 2 { values[String(parts[0])] = String(parts[1]) }
    }
    return values
}

/// MD5 of the compressed data of stream `stream`, packet after packet (`ffmpeg -c copy -f md5`).
func packetHash(_ path: String, stream: String) throws -> String {
    let result = try run("ffmpeg", ["-nostdin", "-v", "error", "-i", path, "-map", "0:\(stream)", "-c", "copy",
                                    "-f", "md5", "-"])
    return result.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines)
}

@Suite struct StreamCopyTests {
    @Test(arguments: [("mp4", "mp4"), ("matroska", "mkv")])
    func copiesH264PacketsUnchanged(format: String, fileExtension: String) throws {
        let fixtures = try Fixtures.shared.get()
        let output = try remux(fixtures.grayMP4, format: format, fileExtension: fileExtension)
        #expect(try countedFrames(output, stream: "v:0") == ["codec_name": "h264",
                                                             "nb_read_frames": String(Fixtures.frameCount)])
        let hash = try packetHash(output, stream: "v:0")
        #expect(hash.hasPrefix("MD5="))
        #expect(hash == (try packetHash(fixtures.grayMP4, stream: "v:0")))
        #expect(try decodesCleanly(output))
    }

    @Test func copiesVideoAndAudioTogether() throws {
        let fixtures = try Fixtures.shared.get()
        let output = try remux(fixtures.movie, format: "mp4", fileExtension: "mp4")
        let video = try countedFrames(output, stream: "v:0")
        #expect(video == ["codec_name": "h264", "nb_read_frames": "60"])
        #expect(video == (try countedFrames(fixtures.movie, stream: "v:0")))
        let audio = try countedFrames(output, stream: "a:0")
        #expect(audio["codec_name"] == "aac")
        #expect(audio == (try countedFrames(fixtures.movie, stream: "a:0")))
        for stream in ["v:0", "a:0"] {
            #expect(try packetHash(output, stream: stream) == (try packetHash(fixtures.movie, stream: stream)))
        }
    }

    @Test func refusesPacketsOutsideStartAndFinish() throws {
        let fixtures = try Fixtures.shared.get()
        let reader = try PacketReader(path: fixtures.grayMP4, policy: .localFilesOnly)
        let muxer = try Muxer(destination: .file(try scratchPath("early.mp4")), formatName: "mp4", metadata: [],
                              faststart: false)
        let copy = try muxer.addStream(copying: 0, of: reader)
        let packet = try Packet()
        #expect(try reader.read(into: packet))
        let early = #expect(throws: MediaError.self) { try muxer.write(packet, to: copy) }
        #expect(early?.description.hasSuffix("write called outside start() … finish()") == true)
        let missing = #expect(throws: MediaError.self) { try muxer.addStream(copying: 5, of: reader) }
        #expect(missing?.kind == .noSuchStream)
    }
}
