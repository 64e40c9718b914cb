import Foundation
import ReelMedia
import ReelModel
import ReelTime

/// Everything a review page (`reel report`) shows, gathered, and the page itself: one self-contained HTML file.
///
/// The page loads nothing: pictures are `data:` URIs, the style and the one script are inline, and its content
/// security policy forbids every other source, so it opens the same from a CI artefact, an e-mail or a file browser.
/// Its parts, top to bottom: the timeline to scale (one row per track, then titles, image overlays, captions,
/// chapters, transitions and the instruction boundaries); the contact sheet (click a picture to enlarge it); the sound (the
/// mix's waveform, the EBU R128 momentary and short-term curves with the target and true-peak ceiling, integrated
/// loudness, LRA and true peak of the output file); captions; chapters; validation's diagnostics; the output file's facts;
/// one section per further output (`outputs`: its file's facts and loudness); the render's stats. Elements a test or a script reads carry `data-` attributes (times in seconds).
public struct ReviewPage: Sendable {
    /// One picture of the contact sheet.
    public struct Picture: Sendable {
        /// Composition time of the picture, seconds.
        public var time: Time
        /// Its frame's timecode.
        public var timecode: String
        /// A PNG or JPEG file's bytes.
        public var image: [UInt8]
        /// The image's MIME type.
        public var mimeType: String

        /// A picture of the contact sheet.
        public init(time: Time, timecode: String, image: [UInt8], mimeType: String) {
            self.time = time
            self.timecode = timecode
            self.image = image
            self.mimeType = mimeType
        }
    }

    /// What the rendered file holds, read from outside (probe, packets, the audio stream).
    public struct FileFacts: Sendable {
        /// The file's path.
        public var path: String
        /// Bytes on disk.
        public var fileSize: Int64
        /// What the container says.
        public var info: MediaInfo
        /// Packets and bytes per stream, and the colour tags of video streams.
        public var tallies: [StreamTally]
        /// Samples per channel decoded from the first audio stream; nil without audio.
        public var audioSampleCount: Int64?

        /// The file's facts.
        public init(path: String, fileSize: Int64, info: MediaInfo, tallies: [StreamTally], audioSampleCount: Int64?) {
            self.path = path
            self.fileSize = fileSize
            self.info = info
            self.tallies = tallies
            self.audioSampleCount = audioSampleCount
        }
    }

    /// One further output of the render (`outputs`, docs/outputs.md), read from outside as the main one is.
    public struct Rendition: Sendable {
        /// Where the output goes, absolute.
        public var path: String
        /// Its facts; nil when there is no file there or it cannot be read (`problem` says which).
        public var file: FileFacts?
        /// Its sound; nil without a file or without audio.
        public var sound: LoudnessCurve?
        /// What stands in place of the facts: not rendered, an HLS playlist's summary, or what reading it said.
        public var problem: String?

        /// A further output's section.
        public init(path: String, file: FileFacts?, sound: LoudnessCurve?, problem: String?) {
            self.path = path
            self.file = file
            self.sound = sound
            self.problem = problem
        }
    }

    /// The page's title (the project's file name).
    public var title: String
    /// The compiled project.
    public var project: CompiledProject
    /// Validation's diagnostics, in document order.
    public var diagnostics: [Diagnostic]
    /// The contact sheet's pictures, in time order.
    public var pictures: [Picture]
    /// The output file's facts; nil when it was not rendered.
    public var file: FileFacts?
    /// The output file's sound; nil without a file or without audio.
    public var sound: LoudnessCurve?
    /// What `reel render --stats` wrote, when given.
    public var stats: RenderStats?
    /// The further outputs (`outputs`), in the project's order; each has a section of its own.
    public var renditions: [Rendition] = []

    /// Width of the timeline's drawing, CSS pixels: time t sits at t × 1000 / duration from its left edge.
    public static let timelineWidth = 1000.0

    /// A page of these parts.
    public init(title: String, project: CompiledProject, diagnostics: [Diagnostic], pictures: [Picture],
                file: FileFacts?, sound: LoudnessCurve?, stats: RenderStats?) {
        self.title = title
        self.project = project
        self.diagnostics = diagnostics
        self.pictures = pictures
        self.file = file
        self.sound = sound
        self.stats = stats
    }

    /// The page as HTML.
    public func html() -> String {
        var page = Self.head(title: title + " — reel report", style: Self.style, scripts: true) + """
            <h1>\(Self.escaped(title))</h1>
            <p class="summary">\(Self.escaped(summary))</p>

            """
        page += timelineSection()
        page += sheetSection()
        page += soundSection()
        page += captionsSection()
        page += chaptersSection()
        page += diagnosticsSection()
        page += fileSection()
        page += renditionsSection()
        page += statsSection()
        page += """
            <div id="lightbox" hidden><img id="lightbox-image" alt=""><p id="lightbox-caption"></p></div>
            <script>\(Self.script)</script>
            </body></html>

            """
        return page
    }

    private var summary: String {
        let size = project.encodedSize
        let rate = (try? project.frameDuration.rational.inverse).map(Self.rate) ?? "?"
        return "\(Self.seconds(project.duration)) s, \(project.frameCount) frames at \(rate) fps, "
            + "\(size.width)×\(size.height)" + (file.map { "; output " + $0.path } ?? "; not rendered")
    }

    // MARK: Timeline

    /// One labelled box on a timeline row.
    private struct Box {
        var start: Time
        var end: Time
        var label: String
        var kind: String
    }

    private func timelineSection() -> String {
        var rows: [(name: String, boxes: [Box])] = []
        for track in project.composition.tracks {
            let boxes = track.segments.map { segment in
                Box(start: segment.target.start, end: segment.target.end,
                    label: segment.asset ?? "gap", kind: segment.isEmpty ? "gap" : track.kind.rawValue)
            }
            rows.append(("track \(track.id) \(track.kind.rawValue)" + (track.name.map { " · " + $0 } ?? ""), boxes))
        }
        let titles = project.videoComposition.titles.map { layer in
            Box(start: layer.timeRange.start, end: layer.timeRange.end, label: Self.label(of: layer), kind: "title")
        }
        if !titles.isEmpty { rows.append(("titles", titles)) }
        let overlays = project.videoComposition.overlays.map { layer in
            Box(start: layer.timeRange.start, end: layer.timeRange.end, label: Self.label(of: layer), kind: "overlay")
        }
        if !overlays.isEmpty { rows.append(("overlays", overlays)) }
        for (index, captions) in project.videoComposition.captions.enumerated() {
            // Compiled cues are in movie time.
            let cues = captions.cues.map { cue in Box(start: cue.start, end: cue.end, label: cue.text, kind: "caption") }
            rows.append(("captions \(index + 1)", cues))
        }
        let chapters = chapterMarks.map { mark in
            Box(start: mark.range.start, end: mark.range.end, label: mark.title, kind: "chapter")
        }
        if !chapters.isEmpty { rows.append(("chapters", chapters)) }
        let transitions = project.videoComposition.instructions.filter(Self.isTransition).map { instruction in
            Box(start: instruction.timeRange.start, end: instruction.timeRange.end, label: "transition",
                kind: "transition")
        }
        if !transitions.isEmpty { rows.append(("transitions", transitions)) }
        let instructions = project.videoComposition.instructions.enumerated().map { index, instruction in
            Box(start: instruction.timeRange.start, end: instruction.timeRange.end, label: "\(index)",
                kind: "instruction")
        }
        rows.append(("instructions", instructions))

        var html = "<section id=\"timeline\"><h2>Timeline</h2>\n"
            + "<div class=\"timeline\" data-duration=\"\(Self.seconds(project.duration))\" "
            + "data-width=\"\(Int(Self.timelineWidth))\">\n"
        html += "<div class=\"ruler\">" + rulerTicks() + "</div>\n"
        for row in rows {
            html += "<div class=\"row\"><span class=\"row-name\">\(Self.escaped(row.name))</span>"
                + "<div class=\"lane\">"
            for box in row.boxes {
                let left = x(of: box.start), width = max(0, x(of: box.end) - left)
                html += "<div class=\"box \(box.kind)\" data-start=\"\(Self.seconds(box.start))\" "
                    + "data-end=\"\(Self.seconds(box.end))\" style=\"left:\(Self.pixels(left))px;"
                    + "width:\(Self.pixels(width))px\" title=\"\(Self.escaped(box.label)): "
                    + "\(Self.seconds(box.start))–\(Self.seconds(box.end)) s\">\(Self.escaped(box.label))</div>"
            }
            html += "</div></div>\n"
        }
        return html + "</div></section>\n"
    }

    /// An instruction with two or more layers of which one fades, moves or is uncovered by a changing crop: how
    /// every transition compiles (an animated video overlay over a clip reads the same way).
    private static func isTransition(_ instruction: VideoInstruction) -> Bool {
        instruction.layers.count >= 2 && instruction.layers.contains { layer in
            Set(layer.opacity.keys.flatMap { $0.values }).count > 1
                || Set(layer.transform.keys.flatMap { $0.values }).count > 1
                || Set(layer.crop.keys.flatMap { $0.values }).count > 1
        }
    }

    private static func label(of layer: MovieLayer) -> String {
        switch layer.content {
        case .text(let style): style.text
        case .image(let asset, _): asset
        case .shape(let style): style.kind.rawValue
        }
    }

    private func rulerTicks() -> String {
        let seconds = project.duration.seconds
        guard seconds > 0 else { return "" }
        let step = [0.1, 0.5, 1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 1800, 3600].first { seconds / $0 <= 12 } ?? 3600
        var ticks = ""
        var t = 0.0
        while t <= seconds + 1e-9 {
            ticks += "<span class=\"tick\" style=\"left:\(Self.pixels(t * Self.timelineWidth / seconds))px\">"
                + "\(Self.number(t, 1))</span>"
            t += step
        }
        return ticks
    }

    /// The timeline's x for `time`, CSS pixels.
    private func x(of time: Time) -> Double {
        let seconds = project.duration.seconds
        return seconds > 0 ? time.seconds * Self.timelineWidth / seconds : 0
    }

    // MARK: Contact sheet

    private func sheetSection() -> String {
        var html = "<section id=\"sheet\"><h2>Contact sheet</h2><div class=\"sheet\">\n"
        for picture in pictures {
            let source = "data:\(picture.mimeType);base64," + Data(picture.image).base64EncodedString()
            html += "<figure class=\"thumb\" data-time=\"\(Self.seconds(picture.time))\">"
                + "<img src=\"\(source)\" alt=\"\(picture.timecode)\" title=\"click to enlarge\">"
                + "<figcaption>\(picture.timecode)</figcaption></figure>\n"
        }
        if pictures.isEmpty { html += "<p>No pictures: the project has no video instructions.</p>" }
        return html + "</div></section>\n"
    }

    // MARK: Sound

    private func soundSection() -> String {
        var html = "<section id=\"sound\"><h2>Sound</h2>\n"
        guard let sound else {
            return html + "<p>\(file == nil ? "No output file to measure." : "The output file has no sound.")</p>"
                + "</section>\n"
        }
        let target = project.output.audio?.loudness
        let measurement = sound.measurement
        html += "<table class=\"facts\">" + Self.loudnessRows(measurement, named: { " id=\"\($0)\"" })
            + "<tr><th>target</th><td>" + (target.map {
                "\(Self.number($0.integrated, 1)) LUFS, true peak ≤ \(Self.number($0.truePeak, 1)) dBTP"
            } ?? "none set (lines drawn at EBU R128's −23 LUFS and −1 dBTP)") + "</td></tr></table>\n"
        html += waveform(sound)
        html += loudnessCurve(sound, target: target?.integrated ?? -23, ceiling: target?.truePeak ?? -1)
        return html + "</section>\n"
    }

    /// The integrated loudness (its value in `data-value`), loudness range and true peak as table rows; `named`
    /// gives each value's cell its `id` or `class` attribute from "integrated", "lra" and "true-peak".
    private static func loudnessRows(_ measurement: LoudnessMeasurement, named: (String) -> String) -> String {
        "<tr><th>integrated</th><td\(named("integrated")) data-value=\""
            + (measurement.integrated.map { number($0, 2) } ?? "") + "\">"
            + (measurement.integrated.map { number($0, 1) + " LUFS" } ?? "below the −70 LUFS gate") + "</td></tr>"
            + "<tr><th>loudness range</th><td\(named("lra"))>\(number(measurement.range, 1)) LU</td></tr>"
            + "<tr><th>true peak</th><td\(named("true-peak"))>"
            + (measurement.truePeak.map { number($0, 1) + " dBTP" } ?? "none (digital silence)") + "</td></tr>"
    }

    private func waveform(_ sound: LoudnessCurve) -> String {
        let width = Self.timelineWidth, height = 120.0, middle = height / 2
        let count = max(1, sound.waveform.count)
        var top = "", bottom = ""
        for (index, peak) in sound.waveform.enumerated() {
            let x = Self.pixels(Double(index) * width / Double(count))
            top += "\(x),\(Self.pixels(middle - Double(max(-1, min(1, peak.high))) * middle)) "
            bottom = "\(x),\(Self.pixels(middle - Double(max(-1, min(1, peak.low))) * middle)) " + bottom
        }
        return "<h3>Waveform of the mix</h3><svg class=\"waveform\" viewBox=\"0 0 \(Int(width)) \(Int(height))\" "
            + "width=\"\(Int(width))\" height=\"\(Int(height))\"><line x1=\"0\" x2=\"\(Int(width))\" "
            + "y1=\"\(Int(middle))\" y2=\"\(Int(middle))\" class=\"axis\"/>"
            + "<polygon points=\"\(top)\(bottom)\" class=\"wave\"/></svg>\n"
    }

    private func loudnessCurve(_ sound: LoudnessCurve, target: Double, ceiling: Double) -> String {
        let width = Self.timelineWidth, height = 200.0, floor = -60.0, top = 0.0
        func y(_ lufs: Double) -> String { Self.pixels((top - max(floor, min(top, lufs))) / (top - floor) * height) }
        func line(_ values: [Double?], _ kind: String) -> String {
            let count = max(1, values.count)
            var paths: [String] = [], current = ""
            for (index, value) in values.enumerated() {
                guard let value else {
                    if !current.isEmpty { paths.append(current) }
                    current = ""
                    continue
                }
                current += "\(Self.pixels(Double(index + 1) * width / Double(count))),\(y(value)) "
            }
            if !current.isEmpty { paths.append(current) }
            return paths.map { "<polyline class=\"\(kind)\" points=\"\($0)\"/>" }.joined()
        }
        var svg = "<h3>Loudness (EBU R128)</h3><svg class=\"loudness\" viewBox=\"0 0 \(Int(width)) \(Int(height))\" "
            + "width=\"\(Int(width))\" height=\"\(Int(height))\">"
        for level in stride(from: -60.0, through: 0, by: 10) {
            svg += "<line class=\"grid\" x1=\"0\" x2=\"\(Int(width))\" y1=\"\(y(level))\" y2=\"\(y(level))\"/>"
                + "<text class=\"grid-label\" x=\"2\" y=\"\(y(level))\">\(Int(level))</text>"
        }
        svg += "<line id=\"target-line\" class=\"target\" data-value=\"\(Self.number(target, 1))\" x1=\"0\" "
            + "x2=\"\(Int(width))\" y1=\"\(y(target))\" y2=\"\(y(target))\"/>"
            + "<line id=\"ceiling-line\" class=\"ceiling\" data-value=\"\(Self.number(ceiling, 1))\" x1=\"0\" "
            + "x2=\"\(Int(width))\" y1=\"\(y(ceiling))\" y2=\"\(y(ceiling))\"/>"
        svg += line(sound.momentary, "momentary") + line(sound.shortTerm, "short-term")
        svg += "</svg><p class=\"legend\"><span class=\"momentary-key\">momentary (400 ms)</span> "
            + "<span class=\"short-term-key\">short-term (3 s)</span> <span class=\"target-key\">target "
            + "\(Self.number(target, 1)) LUFS</span> <span class=\"ceiling-key\">true-peak ceiling "
            + "\(Self.number(ceiling, 1)) dBTP</span> (LUFS, −60 to 0; a point every \(Self.number(sound.step, 1)) s)</p>\n"
        return svg
    }

    // MARK: Lists

    private func captionsSection() -> String {
        var html = "<section id=\"captions\"><h2>Captions</h2>\n"
        let all = project.videoComposition.captions
        if all.isEmpty { return html + "<p>None.</p></section>\n" }
        for (index, captions) in all.enumerated() {
            html += "<h3>\(index + 1): \(Self.escaped(captions.captions.file)) (\(captions.captions.mode.rawValue)"
                + (captions.captions.language.map { ", " + Self.escaped($0) } ?? "") + ")</h3><ol class=\"cues\">"
            for cue in captions.cues {
                html += "<li><span class=\"time\">\(Self.seconds(cue.start))–\(Self.seconds(cue.end)) s</span> "
                    + "\(Self.escaped(cue.text))</li>"
            }
            html += "</ol>\n"
        }
        return html + "</section>\n"
    }

    /// The chapters as the render writes them into the file: each until the next one starts, the last until the end.
    private var chapterMarks: [ChapterMark] {
        guard let whole = try? TimeRange(start: .zero, duration: project.duration) else { return [] }
        return ChapterMark.marks(project.composition.chapters, over: whole)
    }

    private func chaptersSection() -> String {
        let html = "<section id=\"chapters\"><h2>Chapters</h2>\n"
        let marks = chapterMarks
        if marks.isEmpty { return html + "<p>None.</p></section>\n" }
        return html + "<ol class=\"chapters\">" + marks.map { mark in
            "<li><span class=\"time\">\(Self.seconds(mark.range.start))–\(Self.seconds(mark.range.end)) s</span> "
                + "\(Self.escaped(mark.title))</li>"
        }.joined() + "</ol></section>\n"
    }

    private func diagnosticsSection() -> String {
        var html = "<section id=\"diagnostics\"><h2>Validation</h2>\n"
        if diagnostics.isEmpty { return html + "<p class=\"ok\">No warnings.</p></section>\n" }
        html += "<ul class=\"diagnostics\">"
        for diagnostic in diagnostics {
            html += "<li class=\"\(diagnostic.severity.rawValue)\"><b>\(diagnostic.severity.rawValue)</b> "
                + "<code>\(Self.escaped(diagnostic.path.description))</code> \(Self.escaped(diagnostic.message))"
                + (diagnostic.hint.map { "<br><i>hint: \(Self.escaped($0))</i>" } ?? "") + "</li>"
        }
        return html + "</ul></section>\n"
    }

    private func fileSection() -> String {
        let html = "<section id=\"file\"><h2>Output file</h2>\n"
        guard let file else { return html + "<p>Not rendered: no file at the output path.</p></section>\n" }
        return html + Self.facts(of: file, sizeID: " id=\"file-size\"") + "</section>\n"
    }

    /// One section per further output: its file's facts and its sound's loudness, or why there are none.
    private func renditionsSection() -> String {
        guard !renditions.isEmpty else { return "" }
        var html = "<section id=\"renditions\"><h2>Further outputs</h2>\n"
        for (index, rendition) in renditions.enumerated() {
            html += "<section class=\"rendition\" data-index=\"\(index)\" data-path=\"\(Self.escaped(rendition.path))\">"
                + "<h3>outputs[\(index)]: \(Self.escaped((rendition.path as NSString).lastPathComponent))</h3>\n"
            guard let file = rendition.file else {
                html += "<p>\(Self.escaped(rendition.problem ?? "Not rendered."))</p></section>\n"
                continue
            }
            html += Self.facts(of: file, sizeID: "")
            if let measurement = rendition.sound?.measurement {
                html += "<table class=\"facts\">" + Self.loudnessRows(measurement, named: { " class=\"\($0)\"" })
                    + "</table>\n"
            }
            html += "</section>\n"
        }
        return html + "</section>\n"
    }

    /// A file's facts: container, size, duration and overall bitrate, then one row per stream.
    private static func facts(of file: FileFacts, sizeID: String) -> String {
        let duration = file.info.duration
        var html = "<table class=\"facts\"><tr><th>path</th><td>\(Self.escaped(file.path))</td></tr>"
            + "<tr><th>container</th><td>\(Self.escaped(file.info.formatName))</td></tr>"
            + "<tr><th>file size</th><td\(sizeID) data-value=\"\(file.fileSize)\">\(file.fileSize) bytes</td></tr>"
            + "<tr><th>duration</th><td>\(duration.map { Self.seconds($0) + " s" } ?? "unknown")</td></tr>"
            + "<tr><th>overall bitrate</th><td>"
            + (duration.flatMap { $0.seconds > 0 ? Double(file.fileSize) * 8 / $0.seconds : nil }.map(Self.bitRate)
               ?? "unknown") + "</td></tr></table>\n"
        html += "<table class=\"streams\"><tr><th>#</th><th>type</th><th>codec</th><th>picture or sound</th>"
            + "<th>frames or samples</th><th>colour</th><th>duration</th><th>bitrate</th></tr>"
        for stream in file.info.streams {
            let tally = file.tallies.first { $0.streamIndex == stream.index }
            var shape = "", count = "", colour = ""
            switch stream.type {
            case .video:
                shape = "\(stream.width)×\(stream.height)"
                if let format = stream.pixelFormat { shape += " " + format }
                if let rate = stream.averageFrameRate ?? stream.frameRate { shape += ", \(Self.rate(rate)) fps" }
                count = tally.map { "\($0.packetCount) frames" } ?? ""
                if let tally {
                    colour = [tally.colorRange, tally.colorMatrix, tally.colorPrimaries, tally.colorTransfer]
                        .compactMap { $0 }.joined(separator: " / ")
                }
            case .audio:
                shape = "\(stream.sampleRate) Hz, \(stream.channels) ch" + (stream.channelLayout.map { " (\($0))" } ?? "")
                if stream.index == file.info.bestAudioStream?.index, let samples = file.audioSampleCount {
                    count = "\(samples) samples"
                } else {
                    count = tally.map { "\($0.packetCount) packets" } ?? ""
                }
            default:
                count = tally.map { "\($0.packetCount) packets" } ?? ""
            }
            let streamDuration = stream.duration ?? duration
            html += "<tr data-stream=\"\(stream.index)\"><td>\(stream.index)</td><td>\(stream.type.rawValue)</td>"
                + "<td>\(Self.escaped(stream.codec))</td><td>\(Self.escaped(shape))</td><td>\(count)</td>"
                + "<td>\(Self.escaped(colour))</td><td>\(streamDuration.map { Self.seconds($0) + " s" } ?? "")</td>"
                + "<td>\(tally?.bitRate(over: streamDuration).map(Self.bitRate) ?? "")</td></tr>"
        }
        return html + "</table>\n"
    }

    private func statsSection() -> String {
        var html = "<section id=\"stats\"><h2>Render</h2>\n"
        guard let stats else { return html + "<p>No stats (render with --stats FILE and pass it to report).</p></section>\n" }
        html += "<table class=\"facts\"><tr><th>frames</th><td>\(stats.frames)</td></tr>"
            + "<tr><th>media duration</th><td>\(Self.number(stats.mediaSeconds, 3)) s</td></tr>"
            + "<tr><th>wall time</th><td id=\"render-time\">\(Self.number(stats.elapsedSeconds, 3)) s</td></tr>"
            + "<tr><th>speed</th><td>\(Self.number(stats.speed, 2))× real time, "
            + "\(Self.number(stats.framesPerSecond, 1)) frames/s</td></tr></table>"
        return html + "</section>\n"
    }

    // MARK: Text

    /// The start of every page reel writes for reviewers, up to `<body>`: self-contained by its content security
    /// policy (nothing is fetched; images are data: URIs), with inline `style` and, when `scripts`, inline scripts.
    static func head(title: String, style: String, scripts: Bool = false) -> String {
        """
        <!DOCTYPE html>
        <html lang="en"><head><meta charset="utf-8">
        <meta http-equiv="Content-Security-Policy" content="default-src 'none'; img-src data:; \
        style-src 'unsafe-inline'\(scripts ? "; script-src 'unsafe-inline'" : "")">
        <title>\(escaped(title))</title>
        <style>\(style)</style></head><body>

        """
    }

    /// `text` with `&`, `<`, `>`, `"` and `'` escaped for HTML text and attribute values.
    static func escaped(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.count)
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.append(character)
            }
        }
        return out
    }

    /// Seconds with up to six decimals, no trailing zeros (`1.5`, `0.033333`).
    public static func seconds(_ time: Time) -> String {
        var text = String(format: "%.6f", time.seconds)
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text == "-0" ? "0" : text
    }

    private static func number(_ value: Double, _ digits: Int) -> String {
        let text = String(format: "%.\(digits)f", value)
        return text.hasPrefix("-") && Double(text) == 0 ? String(text.dropFirst()) : text
    }

    private static func pixels(_ value: Double) -> String { number(value, 3) }

    private static func rate(_ rate: Rational) -> String {
        rate.denominator == 1 ? "\(rate.numerator)" : number(rate.doubleValue, 3)
    }

    private static func bitRate(_ bitsPerSecond: Double) -> String {
        bitsPerSecond >= 1_000_000 ? number(bitsPerSecond / 1_000_000, 2) + " Mb/s" : number(bitsPerSecond / 1000, 1) + " kb/s"
    }

    private static let style = """
        body{font:14px/1.4 "DejaVu Sans",sans-serif;margin:16px 24px;color:#222;background:#fafafa}
        h1{font-size:20px;margin:0 0 4px}h2{font-size:17px;border-bottom:1px solid #ccc;margin-top:28px}
        h3{font-size:14px;margin:14px 0 6px}.summary{color:#555;margin:0}
        .timeline{position:relative;margin-left:160px;width:1000px}
        .ruler{position:relative;height:18px;border-bottom:1px solid #999}
        .tick{position:absolute;top:0;font-size:11px;color:#666;border-left:1px solid #999;padding-left:2px}
        .row{position:relative;height:26px;margin:3px 0}
        .row-name{position:absolute;left:-160px;width:154px;font-size:12px;line-height:26px;overflow:hidden;\
        white-space:nowrap;text-overflow:ellipsis;text-align:right}
        .lane{position:absolute;left:0;top:0;width:1000px;height:26px;background:#eee}
        .box{position:absolute;top:0;height:24px;box-sizing:border-box;border:1px solid rgba(0,0,0,.35);\
        font-size:11px;line-height:22px;padding:0 3px;overflow:hidden;white-space:nowrap;text-overflow:ellipsis}
        .video{background:#9cc3e6}.audio{background:#a8d8a0}.gap{background:#ddd;color:#888}
        .title{background:#f3d27a}.overlay{background:#d9b3e6}.caption{background:#f5b7a6}.chapter{background:#b9e0c4}
        .transition{background:repeating-linear-gradient(45deg,#bbb,#bbb 4px,#eee 4px,#eee 8px)}
        .instruction{background:#fff}
        .sheet{display:flex;flex-wrap:wrap;gap:10px}
        .thumb{margin:0;width:200px;cursor:zoom-in}.thumb img{width:200px;display:block;border:1px solid #999}
        .thumb figcaption{font:12px monospace;text-align:center}
        #lightbox{position:fixed;inset:0;background:rgba(0,0,0,.85);display:flex;flex-direction:column;\
        align-items:center;justify-content:center;cursor:zoom-out}
        #lightbox[hidden]{display:none}#lightbox img{width:92vw;height:84vh;object-fit:contain}
        #lightbox p{color:#fff;font:14px monospace}
        svg{display:block;background:#fff;border:1px solid #ccc;margin-left:160px}
        .axis{stroke:#aaa}.wave{fill:#4a7fb5;stroke:none}.grid{stroke:#e4e4e4}.grid-label{font-size:10px;fill:#888}
        .momentary{fill:none;stroke:#8bb8e0;stroke-width:1}.short-term{fill:none;stroke:#1c4f8a;stroke-width:2}
        .target{stroke:#2a9d3a;stroke-dasharray:6 3}.ceiling{stroke:#d03030;stroke-dasharray:2 2}
        .legend{margin-left:160px;font-size:12px}.momentary-key{color:#6a9ccc}.short-term-key{color:#1c4f8a}
        .target-key{color:#2a9d3a}.ceiling-key{color:#d03030}
        table{border-collapse:collapse;margin:6px 0}th,td{border:1px solid #ccc;padding:3px 8px;text-align:left;\
        font-size:13px}th{background:#eee}
        .diagnostics li.error{color:#a00}.diagnostics li.warning{color:#8a5a00}.ok{color:#2a7d2a}
        .time{font-family:monospace;color:#555}
        """

    private static let script = """
        (function(){
          var box=document.getElementById('lightbox'),big=document.getElementById('lightbox-image'),
              caption=document.getElementById('lightbox-caption');
          document.querySelectorAll('.thumb img').forEach(function(img){
            img.addEventListener('click',function(){
              big.src=img.src;caption.textContent=img.alt;box.hidden=false;
            });
          });
          box.addEventListener('click',function(){box.hidden=true;});
          document.addEventListener('keydown',function(e){if(e.key==='Escape')box.hidden=true;});
        })();
        """
}

/// How long a render took, as `reel render --stats FILE` writes it (JSON) and `reel report --stats FILE` reads it.
public struct RenderStats: Sendable, Equatable {
    /// Frames written.
    public var frames: Int64
    /// The output's duration, seconds.
    public var mediaSeconds: Double
    /// Wall-clock seconds from the start of the export to the file in place.
    public var elapsedSeconds: Double

    /// Media seconds per wall-clock second.
    public var speed: Double { elapsedSeconds > 0 ? mediaSeconds / elapsedSeconds : 0 }
    /// Frames per wall-clock second.
    public var framesPerSecond: Double { elapsedSeconds > 0 ? Double(frames) / elapsedSeconds : 0 }

    /// Stats of one render.
    public init(frames: Int64, mediaSeconds: Double, elapsedSeconds: Double) {
        self.frames = frames
        self.mediaSeconds = mediaSeconds
        self.elapsedSeconds = elapsedSeconds
    }

    /// `{"frames":…,"mediaSeconds":…,"elapsedSeconds":…,"speed":…,"framesPerSecond":…}`.
    public var json: String {
        "{\"frames\":\(frames),\"mediaSeconds\":\(String(format: "%.6f", mediaSeconds)),"
            + "\"elapsedSeconds\":\(String(format: "%.6f", elapsedSeconds)),\"speed\":\(String(format: "%.4f", speed)),"
            + "\"framesPerSecond\":\(String(format: "%.3f", framesPerSecond))}\n"
    }

    /// Reads what `json` wrote (through reel's JSON parser); nil when `text` is not such an object.
    public init?(json text: String) {
        guard let object = (try? JSONParser.parse(text))?.value.objectValue,
              let frames = object["frames"]?.value.numberText.flatMap({ Int64($0) }),
              let media = object["mediaSeconds"]?.value.numberText.flatMap(Double.init),
              let elapsed = object["elapsedSeconds"]?.value.numberText.flatMap(Double.init)
        else { return nil }
        self.init(frames: frames, mediaSeconds: media, elapsedSeconds: elapsed)
    }
}
