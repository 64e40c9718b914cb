import Foundation
import ReelMedia
import ReelModel
import ReelTime

/// One output of a render with `outputs` (docs/outputs.md): the main output or one entry of `outputs`, with the
/// compiled project as that output alone would see it (its own settings, encoded size and frame grid).
struct Rendition {
    /// How messages name it: `output` or `outputs[i]`.
    let label: String
    /// The file, pattern or playlist written, absolute.
    let path: String
    /// The project with this output's settings, encoded size, frame duration and frame count.
    let project: CompiledProject
    /// Its container and encoders.
    let plan: ExportPlan
    /// Main frames per frame of this output: its frame rate divides the main one.
    let step: Int64
    /// For a poster, the main frame it shows.
    let posterFrame: Int64?

    /// The one output of a render without `outputs`: `project` to `destination`, as `part` of a chunked render when
    /// it is one.
    static func only(_ project: CompiledProject, destination: ExportDestination, part: ExportPart?,
                     encoderThreads: Int) throws(RenderError) -> Rendition {
        let plan = try ExportPlan(project: project, destination: destination, part: part,
                                  encoderThreads: encoderThreads)
        let path = if case .file(let path) = destination { OutputPlacement.normalised(path) } else { "-" }
        return Rendition(label: "output", path: path, project: project, plan: plan, step: 1, posterFrame: nil)
    }

    /// Every output of `main` (the main output first, written to `mainPath`), with relative paths of `outputs`
    /// resolved against the folder of `mainPath` (`OutputPlacement`). Throws what cannot be planned, naming the
    /// output.
    static func plan(_ main: CompiledProject, mainPath: String, encoderThreads: Int) throws(RenderError) -> [Rendition] {
        let placement = OutputPlacement(mainFile: mainPath)
        var outputs = [(label: "output", path: placement.mainPath ?? mainPath, settings: main.output)]
        for (index, output) in main.outputs.enumerated() {
            guard let path = output.path else {
                throw RenderError(.invalid, "outputs[\(index)]: no path")
            }
            outputs.append(("outputs[\(index)]", placement.resolve(path), output))
        }
        var seen: [String: String] = [:]
        var renditions: [Rendition] = []
        for output in outputs {
            if let other = seen[output.path] {
                throw RenderError(.invalid, "\(output.label).path: \(output.path) is also the path of \(other); give every "
                                  + "output its own path")
            }
            seen[output.path] = output.label
            let project = try renditionProject(output.settings, main: main, label: output.label)
            let plan: ExportPlan
            do {
                plan = try ExportPlan(project: project, destination: .file(output.path), encoderThreads: encoderThreads)
            } catch {
                throw RenderError(error.kind, "\(output.label) (\(output.path)): \(error.message)")
            }
            guard let rate = project.output.frameRate, let mainRate = main.output.frameRate,
                  let ratio = try? mainRate.divided(by: rate), ratio.denominator == 1, ratio.numerator >= 1 else {
                throw RenderError(.invalid, "\(output.label).frameRate does not divide the main output's frame rate")
            }
            var posterFrame: Int64?
            if project.output.isPoster {
                let time = project.output.posterTime ?? main.exportRange.start
                posterFrame = min(main.frameCount - 1, max(0, (try? (time - main.exportRange.start)
                    .quotient(dividingBy: main.frameDuration, rounding: .down)) ?? 0))
            }
            renditions.append(Rendition(label: output.label, path: output.path, project: project, plan: plan,
                                        step: ratio.numerator, posterFrame: posterFrame))
        }
        return renditions
    }

    /// `main` as `output` alone would render it: a size not written is the main canvas, scaled by the main
    /// `renderScale` (even sides where the format needs them); an audio-only output keeps the main frame grid, so
    /// its sound follows the main pictures; a poster is one frame.
    private static func renditionProject(_ output: OutputSettings, main: CompiledProject,
                                         label: String) throws(RenderError) -> CompiledProject {
        var project = main
        project.output = output
        project.outputs = []
        guard label != "output" else { return project }
        if output.format?.isAudioOnly == true || output.frameRate == nil { project.output.frameRate = main.output.frameRate }
        let size = output.size ?? main.output.size ?? main.encodedSize
        func side(_ pixels: Int, even: Bool) -> Int {
            let scale = main.output.renderScale
            let scaled = Int(Int64(pixels) * scale.numerator / scale.denominator)
            return max(2, even && scaled % 2 != 0 ? scaled - 1 : scaled)
        }
        project.encodedSize = PixelSize(width: side(size.width, even: output.video.needsEvenWidth),
                                        height: side(size.height, even: output.video.needsEvenHeight))
        guard let rate = project.output.frameRate, let inverse = try? rate.inverse else {
            throw RenderError(.internal, "\(label) has no frame rate")
        }
        project.frameDuration = Time(inverse)
        if output.isPoster {
            project.frameCount = 1
        } else {
            guard let count = try? main.exportRange.duration.quotient(dividingBy: project.frameDuration, rounding: .up)
            else { throw RenderError(.invalid, "\(label): the export cannot be counted in frames of \(rate) fps") }
            project.frameCount = count
        }
        return project
    }
}

// MARK: - One mix, several listeners

/// One audio stage heard by several outputs of a render (docs/outputs.md): the mix is made once, kept from the
/// oldest sample an output still needs to the newest made, and handed to each output (`MixTap`) as it completes
/// its frames. Outputs with the same sample rate, channel count and loudness target share one.
final class SharedMix {
    private let stage: AudioStage
    private let channels: Int
    /// Mixed samples, per channel, from output sample `bufferStart` on.
    private var planes: [[Float]]
    private var bufferStart: Int64 = 0
    /// Output samples each tap has been handed.
    private var positions: [Int64] = []
    private let scratch: [UnsafeMutablePointer<Float>]
    private static let spanSampleCount = 4096
    /// Held while a tap is handed its samples.
    private let lock = Locked(())

    init(stage: AudioStage) {
        self.stage = stage
        channels = stage.channels
        planes = Array(repeating: [], count: stage.channels)
        scratch = (0..<stage.channels).map { _ in UnsafeMutablePointer<Float>.allocate(capacity: Self.spanSampleCount) }
    }

    deinit {
        for buffer in scratch { buffer.deallocate() }
    }

    /// What the stage's loudness normalisation measured and did, if it has one.
    var loudnessReport: LoudnessReport? { stage.loudnessReport }

    /// A listener whose frames and length are `project`'s.
    func tap(for project: CompiledProject) throws(RenderError) -> MixTap {
        positions.append(0)
        return try MixTap(mix: self, id: positions.count - 1, project: project, sampleRate: stage.sampleRate)
    }

    /// Hands tap `id` the samples from where it stands up to `end` (exclusive), mixing what is not made yet.
    func deliver(tap id: Int, through end: Int64,
                 into deliver: (_ planes: [UnsafePointer<Float>], _ sampleCount: Int) throws(RenderError) -> Void)
        throws(RenderError) {
        // The outputs' threads (`OutputThread`) pull their taps at once: one at a time through the mix.
        try lock.withLock { _ throws(RenderError) in try deliverLocked(tap: id, through: end, into: deliver) }
    }

    private func deliverLocked(tap id: Int, through end: Int64,
                               into deliver: (_ planes: [UnsafePointer<Float>], _ sampleCount: Int) throws(RenderError) -> Void)
        throws(RenderError) {
        var position = positions[id]
        guard end > position else { return }
        if bufferStart + Int64(planes[0].count) < end {
            try stage.pull(throughSample: end) { pointers, count throws(RenderError) in
                for channel in 0..<channels {
                    planes[channel].append(contentsOf: UnsafeBufferPointer(start: pointers[channel], count: count))
                }
            }
        }
        while position < end {
            let count = Int(min(Int64(Self.spanSampleCount), end - position))
            let offset = Int(position - bufferStart)
            for channel in 0..<channels {
                planes[channel].withUnsafeBufferPointer { samples in
                    scratch[channel].update(from: samples.baseAddress! + offset, count: count)
                }
            }
            try deliver(scratch.map { UnsafePointer($0) }, count)
            position += Int64(count)
        }
        positions[id] = position
        let oldest = positions.min() ?? position
        if oldest - bufferStart >= 48_000 {
            let dropped = Int(oldest - bufferStart)
            for channel in 0..<channels { planes[channel].removeFirst(dropped) }
            bufferStart = oldest
        }
    }
}

/// One output's share of a `SharedMix`: the samples up to each of its frames' ends, as its own `AudioStage` would
/// hand them (an audio-only output stops at its exact length).
final class MixTap: MixPulling {
    private let mix: SharedMix
    private let id: Int
    private let frameDuration: Time
    private let sampleRate: Int
    private let audioOnlyEnd: Int64?
    private let lastFrameIndex: Int64

    init(mix: SharedMix, id: Int, project: CompiledProject, sampleRate: Int) throws(RenderError) {
        self.mix = mix
        self.id = id
        self.sampleRate = sampleRate
        frameDuration = project.frameDuration
        audioOnlyEnd = project.output.format?.isAudioOnly == true
            ? try AudioStage.sampleCount(of: project, sampleRate: sampleRate) : nil
        lastFrameIndex = project.frameCount - 1
    }

    func pull(
        throughFrame frameIndex: Int64,
        into deliver: (_ planes: [UnsafePointer<Float>], _ sampleCount: Int) throws(RenderError) -> Void
    ) throws(RenderError) {
        let frameEnd: Int64
        do {
            frameEnd = try Time.frames(frameIndex + 1, frameDuration: frameDuration)
                .count(atRate: Int64(sampleRate), rounding: .nearest)
        } catch {
            throw RenderError(.internal, "frame \(frameIndex) cannot be placed on the sample grid")
        }
        var end = frameEnd
        if let audioOnlyEnd { end = frameIndex >= lastFrameIndex ? audioOnlyEnd : min(audioOnlyEnd, frameEnd) }
        try mix.deliver(tap: id, through: end, into: deliver)
    }
}

/// Where two outputs' sound is the same mix: the same sample rate, channel count and loudness target.
struct MixKey: Equatable {
    let sampleRate: Int
    let channels: Int
    let loudness: LoudnessTarget?

    /// The key of `rendition`'s sound, nil when it has none.
    init?(_ rendition: Rendition) {
        guard let audio = rendition.plan.settings.audio else { return nil }
        sampleRate = audio.sampleRate
        channels = audio.channels
        loudness = rendition.project.output.audio?.loudness
    }
}

/// The sound of every output of a render: one `AudioStage` per `MixKey`, made for the longest of the outputs that
/// hear it and checked for loudness with their lossiest codec; an output alone with its key hears the stage
/// itself, outputs that share a key each hear a tap of one `SharedMix`.
final class RenditionMixes {
    /// Each rendition's sound, in order (`.none` for an output without).
    let audio: [OutputWriter.Audio]
    private let stages: [(key: MixKey, stage: AudioStage)]
    private let mainKey: MixKey?

    init(_ renditions: [Rendition], catalog: SourceCatalog, opener: any SourceOpener, failingOnLoudnessMiss: Bool,
         cancellation: CancellationFlag) throws(RenderError) {
        var stages: [(key: MixKey, stage: AudioStage)] = []
        var shared: [(key: MixKey, mix: SharedMix)] = []
        var audio: [OutputWriter.Audio] = []
        for rendition in renditions {
            guard let key = MixKey(rendition), let settings = rendition.plan.settings.audio else {
                audio.append(.none)
                continue
            }
            let listeners = renditions.filter { MixKey($0) == key }
            if !stages.contains(where: { $0.key == key }) {
                // Taps pull by sample; an output alone with its key pulls the stage by its own frames, which are the
                // stage's (it is made for that output's project). The loudness span (if any) covers every listener.
                var longest = rendition.project
                var longestCount: Int64 = -1
                var encoding = settings
                for listener in listeners {
                    let count = try AudioStage.sampleCount(of: listener.project, sampleRate: key.sampleRate)
                    if count > longestCount { (longest, longestCount) = (listener.project, count) }
                    // The loudness check encodes with the listeners' lossiest codec (the most headroom).
                    if let other = listener.plan.settings.audio,
                       LoudnessPlan.codecHeadroom(other.codec) > LoudnessPlan.codecHeadroom(encoding.codec) {
                        encoding = other
                    }
                }
                let stage = try AudioStage(project: longest, catalog: catalog, opener: opener,
                                           sampleRate: key.sampleRate, channels: key.channels, encoding: encoding,
                                           failingOnLoudnessMiss: failingOnLoudnessMiss, cancellation: cancellation)
                stages.append((key, stage))
                if listeners.count > 1 { shared.append((key, SharedMix(stage: stage))) }
            }
            if let mix = shared.first(where: { $0.key == key })?.mix {
                audio.append(.mixed(try mix.tap(for: rendition.project), settings))
            } else if let stage = stages.first(where: { $0.key == key })?.stage {
                audio.append(.mixed(stage, settings))
            }
        }
        self.audio = audio
        self.stages = stages
        mainKey = renditions.first.flatMap(MixKey.init)
    }

    /// What the loudness normalisation measured and did: the main output's mix's, else the first that has one.
    var loudnessReport: LoudnessReport? {
        stages.first { $0.key == mainKey }?.stage.loudnessReport ?? stages.compactMap(\.stage.loudnessReport).first
    }
}

// MARK: - The pictures, once, to every output

/// One output being written in a render with `outputs`: its writer, and which main frames it takes.
final class RenditionTarget {
    let rendition: Rendition
    let writer: OutputWriter
    private let scaler = Scaler()

    init(rendition: Rendition, writer: OutputWriter) {
        self.rendition = rendition
        self.writer = writer
    }

    /// Main frame `index`, composed (nil when no output needs pictures), for this output: encoded when it is one
    /// of its frames (scaled to its size), or, for an output without pictures, its sound brought up to it.
    func take(_ picture: VideoFrame?, mainFrame index: Int64) throws(RenderError) {
        do {
            if rendition.plan.settings.isAudioOnly {
                if index < rendition.project.frameCount { try writer.complete(throughFrame: index) }
                return
            }
            guard let picture else { return }
            if let poster = rendition.posterFrame {
                if index == poster { try writer.encode(try scaled(picture), index: 0) }
                return
            }
            guard index % rendition.step == 0 else { return }
            try writer.encode(try scaled(picture), index: index / rendition.step)
        } catch {
            throw named(error)
        }
    }

    /// Completes the output: the rest of its sound, its encoders drained, its trailer.
    func finish() throws(RenderError) {
        do {
            try writer.finish()
        } catch {
            throw named(error)
        }
    }

    /// The picture at this output's encoded size.
    func scaled(_ picture: VideoFrame) throws(RenderError) -> VideoFrame {
        let size = rendition.project.encodedSize
        guard picture.width != size.width || picture.height != size.height else { return picture }
        do {
            return try scaler.converted(picture, width: size.width, height: size.height, format: .yuv420p)
        } catch {
            throw named(RenderError(media: error))
        }
    }

    /// `error` saying which output failed.
    func named(_ error: RenderError) -> RenderError {
        guard error.kind != .cancelled, !error.message.hasPrefix(rendition.label) else { return error }
        return RenderError(error.kind, "\(rendition.label) (\(rendition.path)) failed: \(error.message)")
    }
}

/// The render core's end in a render with `outputs`: each composed picture to every output, each output on a
/// thread of its own (`OutputThread`), so that their scales and encodes run side by side; then progress.
///
/// Every output takes every frame in order. The first error an output meets stops the render at the next frame
/// (or at `finish`), naming that output (the first in order, if several fail); `close` stops and waits for the
/// threads whatever happened, so that nothing writes after the render returned and its partials are removed.
final class FanOutSink: MediaSink {
    private let threads: [OutputThread]
    private let progress: ProgressCounter

    init(_ targets: [RenditionTarget], progress: ProgressCounter) {
        threads = targets.map(OutputThread.init)
        self.progress = progress
    }

    deinit {
        close()
    }

    func consume(_ frame: ComposedFrame) throws(RenderError) {
        try advance(frame.frame, mainFrame: frame.frameIndex)
    }

    /// Main frame `index` to every output (`picture` nil when none needs pictures).
    func advance(_ picture: VideoFrame?, mainFrame index: Int64) throws(RenderError) {
        try throwFirstError()
        // Composed pictures are read only from here on (SharedFrame's rule), so the outputs may read one together.
        let shared = picture.map(SharedFrame.init)
        for thread in threads { thread.submit(.frame(shared, index)) }
        progress.completed(throughFrame: index)
    }

    func finish() throws(RenderError) {
        for thread in threads { thread.submit(.finish) }
        for thread in threads { thread.waitUntilDone() }
        try throwFirstError()
    }

    /// Stops every output's thread (what is queued is dropped) and returns when they have all ended.
    func close() {
        for thread in threads { thread.stop() }
    }

    private func throwFirstError() throws(RenderError) {
        if let error = threads.lazy.compactMap(\.failure).first {
            close()
            throw error
        }
    }
}

/// One output of a `FanOutSink` on a thread of its own: the frames for it wait in a short queue (a few frames, so
/// memory stays bounded and the render core runs at most that far ahead of the slowest output), and are taken in
/// order. A plain thread, not the Swift concurrency pool: encoding blocks a core for milliseconds at a time.
final class OutputThread: @unchecked Sendable {
    // Why `@unchecked Sendable` is sound: `target` is used by the thread alone once it started (the producer only
    // queues work), the queue and the failure are guarded by `state`, and the pictures queued are `SharedFrame`s.
    enum Work {
        case frame(SharedFrame?, Int64)
        case finish
    }

    private struct State {
        var queue: [Work] = []
        var failure: RenderError?
        var stopping = false
        var started = false
    }

    private static let depth = 3
    private let target: RenditionTarget
    private let state = Locked(State())
    /// Signalled once per queued item, and once to wake the thread when it is stopped.
    private let queued = DispatchSemaphore(value: 0)
    /// Free places in the queue.
    private let room = DispatchSemaphore(value: OutputThread.depth)
    /// Signalled when the thread has ended.
    private let ended = DispatchSemaphore(value: 0)

    init(_ target: RenditionTarget) {
        self.target = target
    }

    /// The error that stopped this output, if one did.
    var failure: RenderError? { state.withLock { $0.failure } }

    /// Queues `work`, waiting while the queue is full; starts the thread with the first item. Ignored once stopped.
    func submit(_ work: Work) {
        room.wait()
        let start = state.withLock { state -> Bool? in
            guard !state.stopping else { return nil }
            state.queue.append(work)
            defer { state.started = true }
            return !state.started
        }
        guard let start else {
            room.signal()
            return
        }
        if start {
            let thread = Thread { [self] in run() }
            thread.name = "output \(target.rendition.label)"
            thread.start()
        }
        queued.signal()
    }

    /// Waits until the thread has ended (after `.finish`, a failure or `stop`); returns at once if it never started.
    func waitUntilDone() {
        guard state.withLock({ $0.started }) else { return }
        ended.wait()
        ended.signal()  // later waits return too
    }

    /// Drops the queued work, lets the item being written complete, and waits for the thread to end.
    func stop() {
        stopAccepting()
        guard state.withLock({ $0.started }) else { return }
        queued.signal()
        waitUntilDone()
    }

    private func run() {
        defer { ended.signal() }
        while true {
            queued.wait()
            let next = state.withLock { state -> Work? in
                guard !state.stopping, state.failure == nil, !state.queue.isEmpty else { return nil }
                return state.queue.removeFirst()
            }
            guard let next else { return }
            room.signal()
            do throws(RenderError) {
                switch next {
                case .frame(let picture, let index):
                    try target.take(picture?.frame, mainFrame: index)
                case .finish:
                    try target.finish()
                    return
                }
            } catch {
                state.withLock { $0.failure = error }
                // Whoever waits for room goes on; what it queues is dropped.
                stopAccepting()
                return
            }
        }
    }

    /// Once stopped or failed: nothing more is queued, and a producer waiting for room is let through.
    private func stopAccepting() {
        state.withLock { state in
            state.stopping = true
            state.queue.removeAll()
        }
        for _ in 0..<Self.depth { room.signal() }
    }
}

/// The first pass of a render's GIF outputs (docs/outputs.md): each one's frames, scaled to its size, into a
/// palettegen of its own (bounded memory, nothing written); the second pass maps its pictures to the palette.
final class PalettePassSink: MediaSink {
    private let passes: [(rendition: Rendition, generator: PaletteGenerator, scaler: Scaler)]

    init(_ renditions: [Rendition]) throws(RenderError) {
        var passes: [(Rendition, PaletteGenerator, Scaler)] = []
        for rendition in renditions {
            let video = rendition.plan.settings.video
            do {
                passes.append((rendition, try PaletteGenerator(width: video.width, height: video.height), Scaler()))
            } catch {
                throw RenderError(media: error)
            }
        }
        self.passes = passes
    }

    func consume(_ frame: ComposedFrame) throws(RenderError) {
        for pass in passes where frame.frameIndex % pass.rendition.step == 0 {
            let size = pass.rendition.project.encodedSize
            do {
                var picture = frame.frame
                if picture.width != size.width || picture.height != size.height {
                    picture = try pass.scaler.converted(picture, width: size.width, height: size.height, format: .yuv420p)
                }
                try pass.generator.add(picture)
            } catch {
                throw RenderError(media: error)
            }
        }
    }

    func finish() throws(RenderError) {}

    /// The palette of rendition `label`'s pictures.
    func palette(of label: String) throws(RenderError) -> VideoFrame? {
        guard let pass = passes.first(where: { $0.rendition.label == label }) else { return nil }
        do {
            return try pass.generator.finish()
        } catch {
            throw RenderError(media: error)
        }
    }
}

// MARK: - HLS master playlists

/// A master playlist listing HLS renditions of one render (docs/outputs.md).
struct MasterPlaylist {
    /// Where it is written, absolute.
    let path: String
    /// The HLS renditions it lists, in order.
    let renditions: [Rendition]

    /// The chapters of the render (in the output's time, the same in every rendition), which the playlist announces
    /// as Apple's JSON chapters (`com.apple.hls.chapters`), and their file beside it: `STEM_chapters.json`.
    var chaptersFile: (path: String, text: String)? {
        guard let chapters = renditions.first?.plan.chapters, !chapters.isEmpty else { return nil }
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent()
        return (folder.appendingPathComponent(Self.stem(path) + "_chapters.json").path, Self.chaptersJSON(chapters))
    }

    /// The files it writes: its chapters (when there are any), then itself.
    var files: [String] { (chaptersFile.map { [$0.path] } ?? []) + [path] }

    /// The master playlists of `renditions` (the main output first): the HLS ones naming the same `master` share it;
    /// those naming none share `master.m3u8` beside the first of them, when there are two or more. A relative
    /// `master` resolves as the entries' paths do, against the main output's folder (`OutputPlacement`).
    static func plan(_ renditions: [Rendition]) -> [MasterPlaylist] {
        guard let main = renditions.first else { return [] }
        let placement = OutputPlacement(mainFile: main.path)
        let hls = renditions.filter { $0.project.output.format == .m3u8 }
        var groups: [(path: String, members: [Rendition])] = []
        func add(_ rendition: Rendition, to path: String) {
            if let index = groups.firstIndex(where: { $0.path == path }) {
                groups[index].members.append(rendition)
            } else {
                groups.append((path, [rendition]))
            }
        }
        let unnamed = hls.filter { $0.project.output.master == nil }
        for rendition in hls {
            if let master = rendition.project.output.master {
                add(rendition, to: placement.resolve(master))
            } else if unnamed.count >= 2, let first = unnamed.first {
                add(rendition, to: URL(fileURLWithPath: first.path).deletingLastPathComponent()
                    .appendingPathComponent("master.m3u8").path)
            }
        }
        return groups.map { MasterPlaylist(path: $0.path, renditions: $0.members) }
    }

    /// The playlist's text, from the media playlists and segments now in place: per rendition its peak and average
    /// bit rate (over its segments, the init segment counted in the first), size, frame rate and codecs.
    func text() -> String {
        var lines = ["#EXTM3U", "#EXT-X-VERSION:7", "#EXT-X-INDEPENDENT-SEGMENTS"]
        let masterFolder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        if let chapters = chaptersFile {
            lines.append("#EXT-X-SESSION-DATA:DATA-ID=\"com.apple.hls.chapters\",URI=\""
                         + Self.relative(chapters.path, from: masterFolder) + "\"")
        }
        for rendition in renditions {
            let folder = URL(fileURLWithPath: rendition.path).deletingLastPathComponent().path
            let rates = Self.bitRates(playlist: rendition.path, folder: folder)
            var attributes = ["BANDWIDTH=\(rates.peak)", "AVERAGE-BANDWIDTH=\(rates.average)"]
            let size = rendition.project.encodedSize
            attributes.append("RESOLUTION=\(size.width)x\(size.height)")
            if let rate = rendition.project.output.frameRate {
                attributes.append("FRAME-RATE=" + String(format: "%.3f", Double(rate.numerator) / Double(rate.denominator)))
            }
            var codecs: [String] = []
            if let video = Self.avcCodec(initSegment: folder + "/" + Self.stem(rendition.path) + "_init.mp4") {
                codecs.append(video)
            }
            if rendition.plan.settings.audio != nil { codecs.append("mp4a.40.2") }
            if !codecs.isEmpty { attributes.append("CODECS=\"\(codecs.joined(separator: ","))\"") }
            lines.append("#EXT-X-STREAM-INF:" + attributes.joined(separator: ","))
            lines.append(Self.relative(rendition.path, from: masterFolder))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Apple's JSON chapter list for HLS: per chapter its number, `start-time` and `duration` in seconds (exact
    /// decimals where they exist, else to the microsecond) and its title, of undetermined language (`und`).
    static func chaptersJSON(_ chapters: [ChapterMark]) -> String {
        func seconds(_ time: Time) -> String { time.decimalText ?? String(format: "%.6f", time.seconds) }
        let entries = chapters.enumerated().map { index, chapter in
            "  {\"chapter\": \(index + 1), \"start-time\": \(seconds(chapter.range.start)), "
                + "\"duration\": \(seconds(chapter.range.duration)), "
                + "\"titles\": [{\"language\": \"und\", \"title\": \(JSONWriter.quoted(chapter.title))}]}"
        }
        return "[\n" + entries.joined(separator: ",\n") + "\n]\n"
    }

    private static func stem(_ path: String) -> String {
        URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent
    }

    /// Peak and average bits per second of a media playlist's segments.
    private static func bitRates(playlist: String, folder: String) -> (peak: Int, average: Int) {
        guard let text = try? String(contentsOfFile: playlist, encoding: .utf8) else { return (0, 0) }
        func bytes(_ name: String) -> Double {
            ((try? FileManager.default.attributesOfItem(atPath: folder + "/" + name))?[.size] as? NSNumber)?.doubleValue ?? 0
        }
        var initBytes = 0.0
        var pending: Double?
        var peak = 0.0, totalBits = 0.0, totalSeconds = 0.0
        for line in text.split(separator: "\n").map(String.init) {
            if line.hasPrefix("#EXT-X-MAP:URI=\""), let end = line.dropFirst(16).firstIndex(of: "\"") {
                initBytes = bytes(String(line.dropFirst(16)[..<end]))
            } else if line.hasPrefix("#EXTINF:") {
                pending = Double(line.dropFirst(8).split(separator: ",").first ?? "")
            } else if let seconds = pending, !line.hasPrefix("#"), !line.isEmpty {
                let bits = (bytes(line) + initBytes) * 8
                initBytes = 0
                if seconds > 0 { peak = max(peak, bits / seconds) }
                totalBits += bits
                totalSeconds += seconds
                pending = nil
            }
        }
        return (Int(peak.rounded(.up)), totalSeconds > 0 ? Int((totalBits / totalSeconds).rounded(.up)) : 0)
    }

    /// RFC 6381's `avc1.PPCCLL` from the `avcC` record of an init segment (profile, constraint flags, level).
    private static func avcCodec(initSegment: String) -> String? {
        guard let data = FileManager.default.contents(atPath: initSegment) else { return nil }
        let bytes = [UInt8](data), tag: [UInt8] = Array("avcC".utf8)
        guard bytes.count > 8 else { return nil }
        for index in 0..<(bytes.count - 8) where Array(bytes[index..<index + 4]) == tag {
            let record = index + 4
            return String(format: "avc1.%02X%02X%02X", bytes[record + 1], bytes[record + 2], bytes[record + 3])
        }
        return nil
    }

    /// `path` relative to `folder` (both absolute).
    static func relative(_ path: String, from folder: String) -> String {
        let target = path.split(separator: "/").map(String.init), base = folder.split(separator: "/").map(String.init)
        var common = 0
        while common < min(target.count - 1, base.count), target[common] == base[common] { common += 1 }
        return (Array(repeating: "..", count: base.count - common) + target[common...]).joined(separator: "/")
    }
}
