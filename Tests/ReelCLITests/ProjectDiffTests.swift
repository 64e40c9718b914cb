import Foundation
import ReelTestSupport
import Testing

/// `reel diff`, from outside: exit 0 unchanged, 1 changed, the usual codes for errors; the changed ranges in
/// seconds; only the changed title's frames rendered; the sound's changed stretch; the page.
@Suite struct ProjectDiffTests: CLISuite {
    let folder: TemporaryDirectory
    let reel: URL

    init() throws {
        (folder, reel) = try Self.workspace(prefix: "reel-diff")
        try runChecked("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=1",
                                  "-ac", "2", folder.file("tone.wav").path])
    }

    /// The indexed clip, a title over [0.2, 0.5) saying `title`, the tone at `volume`.
    private func project(_ name: String, title: String = "One", volume: String = "1") throws -> String {
        try write(name, """
            { "reel": 1, "output": { "path": "out.mp4", "size": [64, 36], "frameRate": 30 },
              "assets": { "clip": { "path": "clip.mp4" }, "tone": { "path": "tone.wav" } },
              "timeline": { "clips": [ { "asset": "clip", "muted": true } ],
                            "audio": [ { "id": "tone", "asset": "tone", "volume": \(volume) } ],
                            "titles": [ { "text": "\(title)", "start": 0.2, "duration": 0.3, "size": 14 } ] } }
            """)
    }

    private func json(_ result: ProcessResult) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any], "\(result.stdoutText)")
    }

    @Test func aCopyIsUnchangedAndNothingIsRendered() throws {
        let result = try reel(["diff", try project("a.json"), try project("b.json"), "--json"])
        #expect(result.status == 0, "\(result.stderrText)")
        let report = try json(result)
        #expect(report["changed"] as? Bool == false)
        #expect((report["pictures"] as? [Any])?.isEmpty == true && (report["sound"] as? [Any])?.isEmpty == true)
        let frames = report["frames"] as? [String: Any]
        #expect((frames?["compared"] as? NSNumber)?.intValue == 30)
        #expect((frames?["rendered"] as? NSNumber)?.intValue == 0)
    }

    @Test func anEditedTitleChangesItsRangeAloneAndOnlyThoseFramesAreRendered() throws {
        let result = try reel(["diff", try project("a.json"), try project("b.json", title: "Two"), "--json"])
        #expect(result.status == 1, "\(result.stderrText)")
        let report = try json(result)
        #expect(report["changed"] as? Bool == true)
        let pictures = try #require(report["pictures"] as? [[String: Any]])
        #expect(pictures.count == 1)
        #expect((pictures.first?["start"] as? NSNumber)?.doubleValue == 0.2)
        #expect((pictures.first?["end"] as? NSNumber)?.doubleValue == 0.5)
        #expect((pictures.first?["frames"] as? [NSNumber])?.map(\.intValue) == [6, 15])
        #expect((report["sound"] as? [Any])?.isEmpty == true)
        let frames = report["frames"] as? [String: Any]
        #expect((frames?["rendered"] as? NSNumber)?.intValue == 9, "only the title's 9 frames: \(frames ?? [:])")
        let keys = try #require(report["keys"] as? [[String: Any]])
        #expect(keys.count == 1 && keys.first?["path"] as? String == "$.timeline.titles[0].text")
        #expect(keys.first?["before"] as? String == "One" && keys.first?["after"] as? String == "Two")
    }

    @Test func aQuieterToneChangesTheSoundAllThrough() throws {
        let result = try reel(["diff", try project("a.json"), try project("b.json", volume: "0.5"), "--json"])
        #expect(result.status == 1, "\(result.stderrText)")
        let report = try json(result)
        let sound = try #require(report["sound"] as? [[String: Any]])
        #expect(sound.count == 1)
        #expect((sound.first?["start"] as? NSNumber)?.doubleValue == 0)
        #expect(abs(((sound.first?["end"] as? NSNumber)?.doubleValue ?? 0) - 1) < 1e-9)
        #expect((report["pictures"] as? [Any])?.isEmpty == true)
    }

    @Test func thePageShowsBeforeAndAfterAndIsKeptWithoutForce() throws {
        let page = folder.file("diff.html").path
        let a = try project("a.json"), b = try project("b.json", title: "Two")
        let result = try reel(["diff", a, b, "-o", page])
        #expect(result.status == 1, "\(result.stderrText)")
        let html = try String(contentsOfFile: page, encoding: .utf8)
        #expect(html.components(separatedBy: "src=\"data:image/jpeg;base64,").count - 1 == 2)
        #expect(html.contains("data-start=\"0.2\" data-end=\"0.5\"") && html.contains("$.timeline.titles[0].text"))
        #expect(!html.contains("src=\"http"))
        #expect(try reel(["diff", a, b, "-o", page]).status == 73)
    }

    @Test func errorsKeepTheirOwnCodes() throws {
        let missing = try reel(["diff", try project("a.json"), folder.file("nope.json").path])
        #expect(missing.status == 66, "\(missing.stderrText)")
        let invalid = try write("bad.json", #"{ "reel": 1, "output": { "path": "o.mp4" }, "timeline": { "clips": [ { "asset": "x" } ] } }"#)
        #expect(try reel(["diff", try project("a.json"), invalid]).status == 65)
        #expect(try reel(["diff", "-", "-"]).status == 64)
    }
}
