import Foundation
import ReelTestSupport
import Testing

/// `reel thumbnail --sheet` and `reel report`, checked from outside: the sheet's pixels against single thumbnails
/// (ffmpeg's crop and psnr), the page's facts against ffprobe, and the page itself opened in headless Chromium
/// (console errors, requests, decoded images, the timeline's geometry, the click that enlarges a picture, the
/// loudness against ffmpeg's ebur128).
@Suite struct ReviewPageTests: CLISuite {
    let folder: TemporaryDirectory
    let reel: URL

    init() throws {
        (folder, reel) = try Self.workspace(prefix: "reel-review")
        // A steady tone, loud enough to pass the −70 LUFS gate all through: its loudness is well defined.
        try runChecked("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=2",
                                  "-ac", "2", folder.file("tone.wav").path])
    }

    /// Three cuts of the indexed clip (0.4 s, 0.4 s, 0.2 s at 30 fps): instructions [0, 0.4), [0.4, 0.8),
    /// [0.8, 1), whose middles are frames 6, 18 and 27.
    private func cuts(output: String = "out.mp4") throws -> String {
        try write("cuts.json", """
            { "reel": 1, "output": { "path": "\(output)", "size": [64, 36], "frameRate": 30 },
              "assets": { "clip": { "path": "clip.mp4" } },
              "timeline": { "clips": [ { "asset": "clip", "in": 0, "out": 0.4 }, { "asset": "clip", "in": 0.1, "out": 0.5 },
                                       { "asset": "clip", "in": 0.7, "out": 0.9 } ] } }
            """)
    }

    /// Clips with a dissolve, a title and a tone on an audio track: every kind of row the timeline draws.
    private func full(output: String = "full.mp4") throws -> String {
        try write("full.json", """
            { "reel": 1, "output": { "path": "\(output)", "size": [128, 72], "frameRate": 30 },
              "assets": { "clip": { "path": "clip.mp4" }, "tone": { "path": "tone.wav" } },
              "timeline": {
                "clips": [ { "asset": "clip", "out": 0.8, "muted": true },
                           { "asset": "clip", "in": 0.2, "muted": true, "transition": { "type": "dissolve", "duration": 0.3 } } ],
                "audio": [ { "id": "tone", "asset": "tone", "duration": 1.5 } ],
                "titles": [ { "text": "Hello", "start": 0.2, "duration": 0.6, "size": 16 } ],
                "chapters": [ { "at": 0, "title": "Opening" }, { "at": 0.5, "title": "The <end>" } ] } }
            """)
    }

    /// The picture `file` holds cropped to `w`×`h` at (`x`, `y`), written as PNG to `name`.
    private func crop(_ file: String, x: Int, y: Int, w: Int, h: Int, to name: String) throws -> String {
        let path = folder.file(name).path
        try runChecked("ffmpeg", ["-v", "error", "-y", "-i", file, "-vf", "crop=\(w):\(h):\(x):\(y)", path])
        return path
    }

    private func psnr(_ a: String, _ b: String) throws -> Double {
        let result = try run("ffmpeg", ["-i", a, "-i", b, "-lavfi", "[0:v]format=rgb24[a];[1:v]format=rgb24[b];[a][b]psnr",
                                        "-f", "null", "-"])
        return try averagePSNR(result.stderrText)
    }

    /// The RGB bytes of `file`'s first picture.
    private func rgb(_ file: String) throws -> [UInt8] {
        [UInt8](try runChecked("ffmpeg", ["-v", "error", "-i", file, "-f", "rawvideo", "-pix_fmt", "rgb24", "-"]))
    }

    // MARK: thumbnail --sheet

    @Test func aSheetTilesTheInstructionMiddlesAsTheSingleThumbnailsShowThem() throws {
        let project = try cuts()
        let sheet = folder.file("sheet.png").path
        let result = try reel(["thumbnail", project, "--sheet", "2x2", "-o", sheet])
        #expect(result.status == 0, "\(result.stderrText)")
        // Tiles of 64×36 (the render is narrower than 320), strips of 14 pixels: 2 × 64 by 2 × 50.
        let info = try probe(URL(fileURLWithPath: sheet))
        #expect(info.first("video").map { "\($0.width ?? 0)x\($0.height ?? 0)" } == "128x100")
        let pixels = try rgb(sheet)
        for (index, time) in ["0.2", "0.6", "0.9"].enumerated() {
            let single = folder.file("single-\(index).png").path
            #expect(try reel(["thumbnail", project, "--at", time, "-o", single]).status == 0)
            let (x, y) = ((index % 2) * 64, (index / 2) * 50)
            let tile = try crop(sheet, x: x, y: y, w: 64, h: 36, to: "tile-\(index).png")
            #expect(try psnr(tile, single) > 50, "tile \(index) at \(time) s")
            // The timecode is drawn in white in the strip below the tile: bright pixels there.
            var brightest = 0
            for row in (y + 36)..<(y + 50) {
                for column in x..<(x + 64) { brightest = max(brightest, Int(pixels[(row * 128 + column) * 3])) }
            }
            #expect(brightest > 180, "tile \(index) has no timecode in its strip")
        }
        // The fourth cell has no picture: all of it the sheet's grey.
        for row in 50..<100 {
            for column in 64..<128 { #expect(pixels[(row * 128 + column) * 3] == 24, "empty cell at \(column),\(row)") }
        }
        // Each tile's label is its own: the three strips differ.
        func strip(_ index: Int) -> [UInt8] {
            let (x, y) = ((index % 2) * 64, (index / 2) * 50 + 36)
            return (y..<(y + 14)).flatMap { row in pixels[((row * 128 + x) * 3)..<((row * 128 + x + 64) * 3)] }
        }
        #expect(strip(0) != strip(1) && strip(1) != strip(2))
    }

    @Test func aSheetTakesAtTimesASizeAndJPEGAndNumbersSheetsBeyondItsCells() throws {
        let project = try cuts()
        let result = try reel(["thumbnail", project, "--sheet", "2x1", "--at", "0,0.5,0.9", "--size", "32x18",
                               "-o", folder.file("s-%d.jpg").path])
        #expect(result.status == 0, "\(result.stderrText)")
        #expect(FileManager.default.fileExists(atPath: folder.file("s-0.jpg").path))
        #expect(FileManager.default.fileExists(atPath: folder.file("s-1.jpg").path))
        #expect(!FileManager.default.fileExists(atPath: folder.file("s-2.jpg").path))
        let info = try probe(folder.file("s-0.jpg"))
        #expect(info.first("video").map { "\($0.width ?? 0)x\($0.height ?? 0)" } == "64x32")
        let single = folder.file("at-09.jpg").path
        #expect(try reel(["thumbnail", project, "--at", "0.9", "--size", "32x18", "-o", single]).status == 0)
        let tile = try crop(folder.file("s-1.jpg").path, x: 0, y: 0, w: 32, h: 18, to: "s1-tile.png")
        #expect(try psnr(tile, single) > 30)
    }

    @Test func sheetMistakesAreFlagErrorsAndAnExistingSheetIsKept() throws {
        let project = try cuts()
        let sheet = folder.file("kept.png").path
        let bad = try reel(["thumbnail", project, "--sheet", "0x3", "-o", sheet])
        #expect(bad.status == 64 && bad.stderrText.contains("--sheet 0x3"), "\(bad.stderrText)")
        let crowded = try reel(["thumbnail", project, "--sheet", "1x2", "-o", sheet])
        #expect(crowded.status == 64 && crowded.stderrText.contains("2 sheets need a pattern"), "\(crowded.stderrText)")
        try Data("mine".utf8).write(to: URL(fileURLWithPath: sheet))
        let refused = try reel(["thumbnail", project, "--sheet", "2x2", "-o", sheet])
        #expect(refused.status == 73, "\(refused.stderrText)")
        #expect(try String(contentsOfFile: sheet, encoding: .utf8) == "mine")
        #expect(try reel(["thumbnail", project, "--sheet", "2x2", "-o", sheet, "--force"]).status == 0)
    }

    // MARK: report

    /// Renders `full.json` with stats and writes its page; returns the page's path.
    private func renderAndReport() throws -> String {
        let project = try full()
        let render = try reel(["render", project, "-q", "--stats", folder.file("stats.json").path])
        #expect(render.status == 0, "\(render.stderrText)")
        let page = folder.file("report.html").path
        let report = try reel(["report", project, "--stats", folder.file("stats.json").path, "-o", page])
        #expect(report.status == 0, "\(report.stderrText)")
        return page
    }

    @Test func theReportIsOneSelfContainedPageWithTheFileFactsAndTheRenderStats() throws {
        let page = try renderAndReport()
        let html = try String(contentsOfFile: page, encoding: .utf8)
        // Nothing to fetch: no URL other than data: in any src or href.
        #expect(!html.contains("src=\"http") && !html.contains("href=") && !html.contains("url("))
        #expect(html.contains("default-src 'none'"))
        // One picture per instruction: cut, dissolve, cut, and the black tail where the tone outlasts the pictures.
        #expect(html.components(separatedBy: "<img src=\"data:image/jpeg;base64,").count - 1 == 4)
        // The file's facts as ffprobe reads them.
        let file = folder.file("full.mp4")
        #expect(html.contains("\(try countFrames(file)) frames"))
        let size = try FileManager.default.attributesOfItem(atPath: file.path)[.size] as? NSNumber
        #expect(html.contains("data-value=\"\(size?.int64Value ?? -1)\""))
        #expect(html.contains("bt709"))
        #expect(html.contains("48000 Hz, 2 ch"))
        // The stats render wrote.
        let stats = try JSONSerialization.jsonObject(with: Data(contentsOf: folder.file("stats.json"))) as? [String: Any]
        #expect((stats?["frames"] as? NSNumber)?.intValue == 45)
        #expect(html.contains("id=\"render-time\""))
        // The title and the tone's track are on the timeline.
        #expect(html.contains(">Hello</div>") && html.contains(">tone</div>") && html.contains("class=\"box transition\""))
        // The chapters as the file holds them (ffprobe reads them from the render), on the timeline and in a list.
        let probed = try run("ffprobe", ["-v", "error", "-show_chapters", "-of", "csv=p=0", folder.file("full.mp4").path])
        #expect(probed.stdoutText.contains("Opening") && probed.stdoutText.contains("The <end>"), "\(probed.stdoutText)")
        #expect(html.contains("class=\"box chapter\"") && html.contains("The &lt;end&gt;"), "no chapters on the page")
        #expect(html.contains("<li><span class=\"time\">0–0.5 s</span> Opening</li>"), "the first chapter's range")
        // An existing page is kept without --force, and a render's stats file too.
        let again = try reel(["report", try full(), "-o", page])
        #expect(again.status == 73, "\(again.stderrText)")
        let other = folder.file("other.mp4")
        let statsAgain = try reel(["render", try full(), "-q", "-o", other.path, "--stats", folder.file("stats.json").path])
        #expect(statsAgain.status == 73, "\(statsAgain.stderrText)")
        #expect(!FileManager.default.fileExists(atPath: other.path), "nothing is rendered when the stats are refused")
    }

    @Test func aReportWithoutARenderedFileDrawsTheProjectAlone() throws {
        let page = folder.file("unrendered.html").path
        let result = try reel(["report", try cuts(output: "never.mp4"), "-o", page])
        #expect(result.status == 0, "\(result.stderrText)")
        let html = try String(contentsOfFile: page, encoding: .utf8)
        #expect(html.contains("Not rendered"))
        let missing = try reel(["report", try cuts(), "--output", folder.file("nope.mp4").path,
                                "-o", folder.file("x.html").path])
        #expect(missing.status == 66, "\(missing.stderrText)")
    }

    /// A render with `outputs` gets one section per further output, read from the files as the main one is; an
    /// output not on disk says so.
    @Test func eachFurtherOutputHasASectionOfItsOwn() throws {
        let project = try write("renditions.json", """
            { "reel": 1, "output": { "path": "main.mp4", "size": [128, 72], "frameRate": 30 },
              "outputs": [ { "path": "small.mp4", "size": [64, 36], "frameRate": 15 },
                           { "path": "sound.m4a", "audio": { "loudness": { "integrated": -16, "truePeak": -1 } } } ],
              "assets": { "clip": { "path": "clip.mp4" }, "tone": { "path": "tone.wav" } },
              "timeline": { "clips": [ { "asset": "clip", "muted": true } ],
                            "audio": [ { "id": "tone", "asset": "tone", "duration": 1 } ] } }
            """)
        let render = try reel(["render", project, "-q"])
        #expect(render.status == 0, "\(render.stderrText)")
        let page = folder.file("renditions.html").path
        let report = try reel(["report", project, "-o", page])
        #expect(report.status == 0, "\(report.stderrText)")
        let html = try String(contentsOfFile: page, encoding: .utf8)
        let sections = html.components(separatedBy: "<section class=\"rendition\"").dropFirst()
        #expect(sections.count == 2, "\(sections.count) rendition sections")
        guard sections.count == 2 else { return }
        let small = sections[sections.startIndex], sound = sections[sections.startIndex + 1]
        #expect(small.contains("data-path=\"\(folder.file("small.mp4").path)\""))
        #expect(small.contains("\(try countFrames(folder.file("small.mp4"))) frames") && small.contains("64×36"))
        #expect(!sound.contains(" fps") && sound.contains("48000 Hz"))
        // The loudness the page gives the sound-only output is ffmpeg's ebur128 reading of the file.
        let measured = try LoudnessTests.ffmpegLoudness(folder.file("sound.m4a").path)
        let value = sound.components(separatedBy: "class=\"integrated\" data-value=\"").dropFirst().first?.prefix { $0 != "\"" }
        let shown = value.flatMap { Double(String($0)) }
        #expect(shown.map { abs($0 - measured.integrated) <= 0.1 } == true, "page \(String(describing: shown)), ffmpeg \(measured)")
        // An output not on disk is named as not rendered; the main output's section is unchanged.
        try FileManager.default.removeItem(at: folder.file("small.mp4"))
        let again = try reel(["report", project, "-o", page, "--force"])
        #expect(again.status == 0, "\(again.stderrText)")
        let second = try String(contentsOfFile: page, encoding: .utf8)
        #expect(second.contains("Not rendered: no file at \(folder.file("small.mp4").path)."))
        #expect(second.contains("id=\"file-size\""))
    }

    // MARK: in a browser

    /// What the probe reads from the page: images, timeline boxes, the click, the loudness.
    private static let probeScript = """
        var lane=document.querySelector('.lane');var duration=parseFloat(document.querySelector('.timeline').dataset.duration);
        var images=Array.prototype.map.call(document.querySelectorAll('img:not(#lightbox-image)'),function(i){
          return {complete:i.complete,naturalWidth:i.naturalWidth};});
        var boxes=Array.prototype.map.call(document.querySelectorAll('.timeline .box'),function(b){
          var r=b.getBoundingClientRect(),l=b.parentElement.getBoundingClientRect();
          return {kind:b.className,start:parseFloat(b.dataset.start),end:parseFloat(b.dataset.end),
                  left:r.left-l.left,width:r.width,laneWidth:l.width};});
        var thumb=document.querySelector('.thumb img');var thumbWidth=thumb.getBoundingClientRect().width;
        var before=!document.getElementById('lightbox').hidden;
        thumb.click();
        setTimeout(function(){
          var big=document.getElementById('lightbox-image');
          reelProbeDone({images:images,boxes:boxes,duration:duration,thumbWidth:thumbWidth,shownBefore:before,
            shownAfter:!document.getElementById('lightbox').hidden,bigWidth:big.getBoundingClientRect().width,
            bigNatural:big.naturalWidth,caption:document.getElementById('lightbox-caption').textContent,
            integrated:parseFloat(document.getElementById('integrated').dataset.value)});
        },500);
        """

    @Test(.enabled(if: HeadlessBrowser.isPresent, "chromium is not installed (make deps installs it)"))
    func theReportOpensInABrowserAsDrawn() throws {
        let page = try renderAndReport()
        let probe = try HeadlessBrowser.probe(page: URL(fileURLWithPath: page), script: Self.probeScript,
                                              in: folder.url)
        #expect(probe.errors.isEmpty, "\(probe.errors)")
        #expect(probe.resources.isEmpty, "the page fetched \(probe.resources)")
        let result = try #require(probe.result as? [String: Any], "\(probe.log.suffix(800))")
        let images = try #require(result["images"] as? [[String: Any]])
        #expect(images.count == 4)
        for image in images {
            #expect(image["complete"] as? Bool == true && ((image["naturalWidth"] as? NSNumber)?.intValue ?? 0) > 0,
                    "an image did not decode: \(image)")
        }
        // Every box sits at start × 1000 / duration, as wide as its span, within a pixel.
        let duration = try #require((result["duration"] as? NSNumber)?.doubleValue)
        #expect(abs(duration - 1.5) < 1e-9)
        let boxes = try #require(result["boxes"] as? [[String: Any]])
        #expect(boxes.count >= 8)
        for box in boxes {
            let start = (box["start"] as? NSNumber)?.doubleValue ?? -1, end = (box["end"] as? NSNumber)?.doubleValue ?? -1
            let left = (box["left"] as? NSNumber)?.doubleValue ?? -99, width = (box["width"] as? NSNumber)?.doubleValue ?? -99
            #expect(abs(left - start * 1000 / duration) <= 1, "\(box)")
            #expect(abs(width - (end - start) * 1000 / duration) <= 1, "\(box)")
        }
        // The dissolve's instruction is [0.5, 0.8); the title [0.2, 0.8).
        #expect(boxes.contains { ($0["kind"] as? String) == "box transition" && ($0["start"] as? NSNumber)?.doubleValue == 0.5
                && ($0["end"] as? NSNumber)?.doubleValue == 0.8 })
        #expect(boxes.contains { ($0["kind"] as? String) == "box title" && ($0["start"] as? NSNumber)?.doubleValue == 0.2 })
        // A click enlarges the picture.
        #expect(result["shownBefore"] as? Bool == false)
        #expect(result["shownAfter"] as? Bool == true)
        let thumbWidth = (result["thumbWidth"] as? NSNumber)?.doubleValue ?? 0
        let bigWidth = (result["bigWidth"] as? NSNumber)?.doubleValue ?? 0
        #expect(bigWidth > thumbWidth * 1.2 && ((result["bigNatural"] as? NSNumber)?.intValue ?? 0) > 0,
                "thumbnail \(thumbWidth) px, enlarged \(bigWidth) px")
        // The integrated loudness the page shows is ffmpeg's ebur128 reading of the file.
        let integrated = try #require((result["integrated"] as? NSNumber)?.doubleValue)
        let ffmpeg = try LoudnessTests.ffmpegLoudness(folder.file("full.mp4").path)
        #expect(abs(integrated - ffmpeg.integrated) <= 0.1, "page \(integrated) LUFS, ffmpeg \(ffmpeg.integrated) LUFS")
    }
}
