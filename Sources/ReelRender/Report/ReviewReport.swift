import Foundation
import ReelMedia
import ReelModel
import ReelTime

/// Gathers a review page's parts (`reel report`): the contact sheet's pictures from the project, and the output
/// file's facts and sound from the file itself.
///
/// Only what the page shows is decoded: one composited picture per thumbnail (the image generator seeks to it), the
/// file's packets are counted without decoding, and the sound is measured from the audio stream alone.
public enum ReviewReport {
    /// Width of the contact sheet's pictures, pixels (shown smaller, enlarged on a click); at most the render's.
    public static let pictureWidth = 480

    /// The page for `project` (checked, with `diagnostics`), its pictures at the middle of every instruction (and
    /// every `every` seconds), the facts and sound of the file at `outputPath` when there is one, and a section for
    /// each further output (`outputs`, where the placement puts them): read when its file is there, "not rendered"
    /// otherwise, and what reading said when it cannot be read (a playlist, an image sequence).
    public static func page(title: String, project: CompiledProject, facts: [String: MediaFactsResult],
                            diagnostics: [Diagnostic], outputPath: String?, stats: RenderStats?, every: Time?,
                            policy: MediaPolicy, isCancelled: @escaping () -> Bool = { false })
        throws(RenderError) -> ReviewPage
    {
        let pictures = try pictures(of: project, facts: facts, every: every, policy: policy, isCancelled: isCancelled)
        var file: ReviewPage.FileFacts?
        var sound: LoudnessCurve?
        if let outputPath {
            do throws(MediaError) {
                (file, sound) = try read(outputPath, policy: policy, isCancelled: isCancelled)
            } catch {
                if isCancelled() { throw RenderError(.cancelled, "interrupted") }
                throw RenderError(media: error)
            }
        }
        var page = ReviewPage(title: title, project: project, diagnostics: diagnostics, pictures: pictures, file: file,
                              sound: sound, stats: stats)
        for written in project.outputs.compactMap(\.path) {
            let path = project.placement.resolve(written)
            guard FileManager.default.fileExists(atPath: path) else {
                page.renditions.append(.init(path: path, file: nil, sound: nil, problem: "Not rendered: no file at \(path)."))
                continue
            }
            if path.lowercased().hasSuffix(".m3u8") {
                page.renditions.append(.init(path: path, file: nil, sound: nil, problem: playlistSummary(path)))
                continue
            }
            do throws(MediaError) {
                let (file, sound) = try read(path, policy: policy, isCancelled: isCancelled)
                page.renditions.append(.init(path: path, file: file, sound: sound, problem: nil))
            } catch {
                if isCancelled() { throw RenderError(.cancelled, "interrupted") }
                page.renditions.append(.init(path: path, file: nil, sound: nil, problem: "Cannot be read: \(error.message)"))
            }
        }
        return page
    }

    /// What an HLS media playlist lists: its segments and their summed `#EXTINF` durations (the page reads the
    /// playlist, not the segments).
    private static func playlistSummary(_ path: String) -> String {
        guard let data = FileManager.default.contents(atPath: path) else { return "Cannot be read: \(path)." }
        let durations = String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline).compactMap { line -> Double? in
            guard line.hasPrefix("#EXTINF:") else { return nil }
            return Double(line.dropFirst("#EXTINF:".count).prefix { $0 != "," })
        }
        let total = durations.reduce(0, +)
        return "An HLS playlist of \(durations.count) segment\(durations.count == 1 ? "" : "s"), "
            + "\(ReviewPage.seconds(Time(value: Int64((total * 1000).rounded()), timescale: 1000))) s in all (its #EXTINF lines)."
    }

    /// A rendered file's facts (probe, packets counted) and its first audio stream's loudness.
    private static func read(_ path: String, policy: MediaPolicy, isCancelled: @escaping () -> Bool)
        throws(MediaError) -> (ReviewPage.FileFacts, LoudnessCurve?)
    {
        let info = try MediaProbe.probe(path: path, policy: policy)
        let tallies = try PacketReader(path: path, policy: policy).tally(isCancelled: isCancelled)
        var sound: LoudnessCurve?
        if let audio = info.bestAudioStream {
            sound = try LoudnessCurve.measure(path: path, streamIndex: audio.index, policy: policy, isCancelled: isCancelled)
        }
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.int64Value ?? 0
        let file = ReviewPage.FileFacts(path: path, fileSize: size, info: info, tallies: tallies,
                                        audioSampleCount: sound?.measurement.sampleCount)
        return (file, sound)
    }

    /// JPEG pictures at every instruction's middle and, with `every`, at 0, every, 2·every, … (merged, in order).
    private static func pictures(of project: CompiledProject, facts: [String: MediaFactsResult], every: Time?,
                                 policy: MediaPolicy, isCancelled: () -> Bool) throws(RenderError)
        -> [ReviewPage.Picture]
    {
        var times = ContactSheet.instructionMidpoints(of: project)
        if let every { times += ContactSheet.times(every: every, before: project.duration) }
        times = Array(Set(times)).sorted()
        guard !times.isEmpty else { return [] }
        let render = project.encodedSize
        let width = min(pictureWidth, render.width) & ~1
        let height = max(2, (width * render.height / max(1, render.width)) & ~1)
        let generator = try ImageGenerator(project: project, facts: facts, policy: policy)
        var pictures: [ReviewPage.Picture] = []
        for time in times {
            if isCancelled() { throw RenderError(.cancelled, "interrupted") }
            let image = try generator.image(at: time, size: PixelSize(width: max(2, width), height: height),
                                            format: .jpeg)
            pictures.append(ReviewPage.Picture(
                time: time, timecode: ContactSheet.timecode(time, frameDuration: project.frameDuration),
                image: image, mimeType: "image/jpeg"))
        }
        return pictures
    }
}
