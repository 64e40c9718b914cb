import Foundation
import ReelMedia
import ReelModel
import ReelTime

/// What changed between two versions of a project, as a viewer sees and hears it (`reel diff`).
///
/// Pictures: the compiled projects are compared first, frame by frame on the first version's frame grid, through
/// `PictureKey` (no decoding); only frames whose keys differ are rendered, from both versions at a reduced size, and
/// a frame counts as changed when the two pictures differ in any pixel. Changed frames are grouped into ranges, each
/// shown by its middle frame before and after with their PSNR. Sound: when the compiled audio (tracks, mix, the
/// assets they use) differs, both mixes are made and compared in 100 ms blocks; blocks with any differing sample are
/// grouped into ranges. Keys: the JSON documents' member-level changes (`JSONChange`).
public struct ProjectDiff: Sendable {
    /// A stretch of frames whose pictures differ.
    public struct PictureChange: Sendable {
        /// Frames [lowerBound, upperBound) of the first version's grid.
        public var frames: Range<Int64>
        /// Composition seconds of the stretch, [start, end).
        public var start: Time, end: Time
        /// The frame shown, and its timecode.
        public var shownTime: Time
        public var timecode: String
        /// JPEG pictures of the shown frame before and after; nil where that version has no picture then.
        public var before: [UInt8]?, after: [UInt8]?
        /// PSNR of after against before at the shown frame, dB, over RGB at the reduced size; nil when one is missing.
        public var psnr: Double?
    }

    /// A stretch of the mix whose samples differ, composition seconds [start, end).
    public struct SoundChange: Sendable {
        public var start: Double, end: Double
    }

    /// The first version's file name, and the second's.
    public var beforeName: String, afterName: String
    /// The member-level changes of the documents (empty when either is not a JSON document).
    public var keys: [JSONChange]
    /// The stretches whose pictures differ.
    public var pictures: [PictureChange]
    /// The stretches whose sound differs.
    public var sound: [SoundChange]
    /// Frames compared, frames whose compiled keys differed, frames rendered from each version to confirm.
    public var frameCount: Int64, candidateFrames: Int64, renderedFrames: Int64

    /// Whether anything a viewer would see or hear changed.
    public var changed: Bool { !pictures.isEmpty || !sound.isEmpty }

    /// Width of the pictures rendered to confirm and shown, pixels (at most the render's).
    public static let pictureWidth = 320

    /// Compares two checked projects (their media described by `beforeFacts` and `afterFacts`) and, when given,
    /// their JSON documents.
    public static func compare(
        before: CompiledProject, beforeFacts: [String: MediaFactsResult], beforeName: String, beforeDocument: JSON?,
        after: CompiledProject, afterFacts: [String: MediaFactsResult], afterName: String, afterDocument: JSON?,
        policy: MediaPolicy, isCancelled: @escaping () -> Bool = { false }
    ) throws(RenderError) -> ProjectDiff {
        let keys = beforeDocument.flatMap { a in afterDocument.map { b in JSONChange.changes(from: a, to: b) } } ?? []
        var diff = ProjectDiff(beforeName: beforeName, afterName: afterName, keys: keys, pictures: [], sound: [],
                               frameCount: 0, candidateFrames: 0, renderedFrames: 0)
        try diff.comparePictures(before, beforeFacts, after, afterFacts, policy: policy, isCancelled: isCancelled)
        try diff.compareSound(before, beforeFacts, after, afterFacts, policy: policy, isCancelled: isCancelled)
        return diff
    }

    // MARK: Pictures

    private mutating func comparePictures(_ a: CompiledProject, _ aFacts: [String: MediaFactsResult],
                                          _ b: CompiledProject, _ bFacts: [String: MediaFactsResult],
                                          policy: MediaPolicy, isCancelled: () -> Bool) throws(RenderError) {
        let step = a.frameDuration
        let end = max(a.duration, b.duration)
        let count: Int64
        do {
            count = try end.quotient(dividingBy: step, rounding: .up)
        } catch {
            throw RenderError(.invalid, "the compositions are too long to compare frame by frame")
        }
        frameCount = count
        // Frames whose keys differ; a different frame grid changes every frame.
        var candidates: [Int64] = []
        var cursorA = InstructionCursor(a.videoComposition), cursorB = InstructionCursor(b.videoComposition)
        for frame in 0..<count {
            if frame % 1024 == 0, isCancelled() { throw RenderError(.cancelled, "interrupted") }
            guard let time = try? Time.frames(frame, frameDuration: step) else { continue }
            if a.frameDuration != b.frameDuration
                || PictureKey(a, at: time, cursor: &cursorA) != PictureKey(b, at: time, cursor: &cursorB) {
                candidates.append(frame)
            }
        }
        candidateFrames = Int64(candidates.count)
        guard !candidates.isEmpty else { return }
        let renderA = try? ImageGenerator(project: a, facts: aFacts, policy: policy)
        let renderB = try? ImageGenerator(project: b, facts: bFacts, policy: policy)
        let size = Self.reducedSize(a.encodedSize)
        func picture(_ generator: ImageGenerator?, _ project: CompiledProject, _ time: Time) throws(RenderError)
            -> VideoFrame?
        {
            guard let generator, time < project.duration else { return nil }
            return try generator.rgbaPicture(at: time, size: size)
        }
        var changedFrames: [Int64] = []
        for frame in candidates {
            if isCancelled() { throw RenderError(.cancelled, "interrupted") }
            guard let time = try? Time.frames(frame, frameDuration: step) else { continue }
            let before = try picture(renderA, a, time), after = try picture(renderB, b, time)
            renderedFrames += 1
            if before?.rgbaBytes != after?.rgbaBytes || before == nil { changedFrames.append(frame) }
        }
        for run in Self.runs(changedFrames) {
            let middle = run.lowerBound + (run.upperBound - run.lowerBound - 1) / 2
            guard let start = try? Time.frames(run.lowerBound, frameDuration: step),
                  let stop = try? Time.frames(run.upperBound, frameDuration: step),
                  let shown = try? Time.frames(middle, frameDuration: step) else { continue }
            let before = try picture(renderA, a, shown), after = try picture(renderB, b, shown)
            pictures.append(PictureChange(
                frames: run, start: start, end: min(stop, end), shownTime: shown,
                timecode: ContactSheet.timecode(shown, frameDuration: step),
                before: try before.map(Self.jpeg), after: try after.map(Self.jpeg),
                psnr: before.flatMap { first in after.flatMap { Self.psnr(first, $0) } }))
        }
    }

    private static func reducedSize(_ size: PixelSize) -> PixelSize {
        let width = max(2, min(pictureWidth, size.width) & ~1)
        return PixelSize(width: width, height: max(2, (width * size.height / max(1, size.width)) & ~1))
    }

    private static func jpeg(_ picture: VideoFrame) throws(RenderError) -> [UInt8] {
        do throws(MediaError) {
            return try ImageWriter.encode(picture, as: .jpeg)
        } catch {
            throw RenderError(media: error)
        }
    }

    /// PSNR over R, G and B of two RGBA pictures of one size, dB; infinity when equal; nil for different sizes.
    static func psnr(_ a: VideoFrame, _ b: VideoFrame) -> Double? {
        guard let x = a.rgbaBytes, let y = b.rgbaBytes, x.count == y.count, !x.isEmpty else { return nil }
        var sum = 0.0
        for index in x.indices where index % 4 != 3 {
            let d = Double(Int(x[index]) - Int(y[index]))
            sum += d * d
        }
        let mse = sum / Double(x.count / 4 * 3)
        return mse == 0 ? .infinity : 10 * log10(255 * 255 / mse)
    }

    /// Consecutive numbers grouped into half-open ranges.
    static func runs(_ numbers: [Int64]) -> [Range<Int64>] {
        var runs: [Range<Int64>] = []
        for number in numbers {
            if let last = runs.last, last.upperBound == number {
                runs[runs.count - 1] = last.lowerBound..<(number + 1)
            } else {
                runs.append(number..<(number + 1))
            }
        }
        return runs
    }

    // MARK: Sound

    private mutating func compareSound(_ a: CompiledProject, _ aFacts: [String: MediaFactsResult],
                                       _ b: CompiledProject, _ bFacts: [String: MediaFactsResult],
                                       policy: MediaPolicy, isCancelled: () -> Bool) throws(RenderError) {
        func audio(_ project: CompiledProject) -> [CompositionTrack] {
            project.composition.tracks.filter { $0.kind == .audio }
        }
        func sources(_ project: CompiledProject) -> [AssetSource?] {
            audio(project).flatMap(\.segments).map { segment in segment.asset.flatMap { project.asset($0)?.source } }
        }
        // The compiled audio first: equal tracks, gains and sources make equal mixes.
        if audio(a) == audio(b), a.audioMix.inputs.map(\.track) == b.audioMix.inputs.map(\.track),
           a.audioMix.inputs.map(\.volume) == b.audioMix.inputs.map(\.volume), sources(a) == sources(b),
           a.duration == b.duration {
            return
        }
        let rate = 48000, channels = 2, block = rate / 10
        let mixers = (try AudioMixer(project: a, catalog: SourceCatalog(project: a, facts: aFacts),
                                     opener: MediaFileOpener(policy: policy), sampleRate: rate, channels: channels),
                      try AudioMixer(project: b, catalog: SourceCatalog(project: b, facts: bFacts),
                                     opener: MediaFileOpener(policy: policy), sampleRate: rate, channels: channels))
        let total = Int64((max(a.duration, b.duration).seconds * Double(rate)).rounded(.up))
        let first = SampleBuffers(channels: channels, capacity: block)
        let second = SampleBuffers(channels: channels, capacity: block)
        var changedBlocks: [Int64] = []
        var position: Int64 = 0
        while position < total {
            if isCancelled() { throw RenderError(.cancelled, "interrupted") }
            let count = Int(min(Int64(block), total - position))
            try mixers.0.mix(fromSample: position, sampleCount: count, into: first)
            try mixers.1.mix(fromSample: position, sampleCount: count, into: second)
            let differs = (0..<channels).contains { channel in
                (0..<count).contains { first.planes[channel][$0] != second.planes[channel][$0] }
            }
            if differs { changedBlocks.append(position / Int64(block)) }
            position += Int64(count)
        }
        let seconds = Double(block) / Double(rate), length = max(a.duration, b.duration).seconds
        sound = Self.runs(changedBlocks).map { run in
            SoundChange(start: Double(run.lowerBound) * seconds, end: min(length, Double(run.upperBound) * seconds))
        }
    }

    // MARK: Output

    /// `{"changed":…,"pictures":[{"start":s,"end":s,"frames":[a,b],"psnr":x}],"sound":[{"start","end"}],
    /// "keys":[{"path","change","before","after"}],"frames":{"compared","candidates","rendered"}}`; times in seconds.
    public func json() -> String {
        func number(_ value: Double?) -> String {
            guard let value else { return "null" }
            return value.isFinite ? String(format: "%.6g", value) : "null"
        }
        let pictureItems = pictures.map { change in
            "{\"start\":\(ReviewPage.seconds(change.start)),\"end\":\(ReviewPage.seconds(change.end)),"
                + "\"frames\":[\(change.frames.lowerBound),\(change.frames.upperBound)],"
                + "\"psnr\":\(change.psnr.map { $0.isFinite ? number($0) : "\"inf\"" } ?? "null")}"
        }
        let soundItems = sound.map { "{\"start\":\(number($0.start)),\"end\":\(number($0.end))}" }
        let keyItems = keys.map { change in
            "{\"path\":\(JSONWriter.quoted(change.path.description)),\"change\":\"\(change.kind.rawValue)\","
                + "\"before\":\(change.before ?? "null"),\"after\":\(change.after ?? "null")}"
        }
        return "{\"changed\":\(changed),\"pictures\":[\(pictureItems.joined(separator: ","))],"
            + "\"sound\":[\(soundItems.joined(separator: ","))],\"keys\":[\(keyItems.joined(separator: ","))],"
            + "\"frames\":{\"compared\":\(frameCount),\"candidates\":\(candidateFrames),"
            + "\"rendered\":\(renderedFrames)}}\n"
    }

    /// A self-contained HTML page: each changed stretch before and after with its PSNR, the sound's changed
    /// stretches, the key changes.
    public func html() -> String {
        let e = ReviewPage.escaped
        let style = """
            body{font:14px/1.4 "DejaVu Sans",sans-serif;margin:16px 24px;color:#222}
            h2{font-size:17px;border-bottom:1px solid #ccc;margin-top:24px}.pair{display:flex;gap:12px;align-items:flex-start}
            figure{margin:0}figcaption{font:12px monospace}img{border:1px solid #999;display:block}
            .empty{width:160px;height:90px;background:#eee;border:1px dashed #999}
            table{border-collapse:collapse}th,td{border:1px solid #ccc;padding:3px 8px;text-align:left;font-size:13px}
            code{font-size:12px}
            """
        var page = ReviewPage.head(title: "\(beforeName) → \(afterName) — reel diff", style: style) + """
            <h1>\(e(beforeName)) → \(e(afterName))</h1>
            <p id="verdict" data-changed="\(changed)">\(changed ? "Changed" : "Nothing a viewer sees or hears changed")\
            : \(pictures.count) picture stretch(es), \(sound.count) sound stretch(es), \(keys.count) key change(s); \
            \(candidateFrames) of \(frameCount) frames differed in the compiled projects, \(renderedFrames) rendered \
            to confirm.</p>
            <h2>Pictures</h2>

            """
        if pictures.isEmpty { page += "<p>No picture changed.</p>\n" }
        for change in pictures {
            func figure(_ image: [UInt8]?, _ label: String) -> String {
                guard let image else { return "<figure><div class=\"empty\"></div><figcaption>\(label): none</figcaption></figure>" }
                return "<figure><img alt=\"\(label)\" src=\"data:image/jpeg;base64,\(Data(image).base64EncodedString())\">"
                    + "<figcaption>\(label)</figcaption></figure>"
            }
            let psnr = change.psnr.map { $0.isFinite ? String(format: "%.2f dB", $0) : "identical" } ?? "—"
            page += "<h3 class=\"change\" data-start=\"\(ReviewPage.seconds(change.start))\" "
                + "data-end=\"\(ReviewPage.seconds(change.end))\">\(ReviewPage.seconds(change.start))–"
                + "\(ReviewPage.seconds(change.end)) s (frames \(change.frames.lowerBound)–\(change.frames.upperBound - 1))"
                + ", shown at \(change.timecode), PSNR \(psnr)</h3><div class=\"pair\">"
                + figure(change.before, "before") + figure(change.after, "after") + "</div>\n"
        }
        page += "<h2>Sound</h2>\n"
        page += sound.isEmpty ? "<p>No sound changed.</p>\n" : "<ul>" + sound.map {
            "<li>\(String(format: "%.1f", $0.start))–\(String(format: "%.1f", $0.end)) s</li>"
        }.joined() + "</ul>\n"
        page += "<h2>Keys</h2>\n"
        if keys.isEmpty {
            page += "<p>No key changed.</p>\n"
        } else {
            page += "<table><tr><th>path</th><th>change</th><th>before</th><th>after</th></tr>"
            for change in keys {
                page += "<tr><td><code>\(e(change.path.description))</code></td><td>\(change.kind.rawValue)</td>"
                    + "<td><code>\(e(change.before ?? ""))</code></td><td><code>\(e(change.after ?? ""))</code></td></tr>"
            }
            page += "</table>\n"
        }
        return page + "</body></html>\n"
    }
}
