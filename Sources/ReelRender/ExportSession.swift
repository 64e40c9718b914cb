import Foundation
import ReelMedia
import ReelModel
import ReelTime
import Synchronization

/// A cancel request that any thread (or a signal handler's queue) may raise.
public final class CancellationFlag: Sendable {
    private let raised = Atomic<Bool>(false)

    /// Creates a flag that is not raised.
    public init() {}

    /// Asks the export to stop at the next frame.
    public func cancel() { raised.store(true, ordering: .relaxed) }

    /// Whether a cancel was requested.
    public var isCancelled: Bool { raised.load(ordering: .relaxed) }
}

/// Where an export goes.
public enum ExportDestination: Sendable, Equatable {
    /// A file, written through a temporary file beside it and renamed on success.
    case file(String)
    /// Standard output, for streamable containers (mkv, nut, ts).
    case standardOutput
}

/// How far an export has come; frame counts never decrease.
public struct ExportProgress: Sendable {
    /// Output frames finished.
    public let frame: Int64
    /// Output frames in all.
    public let frames: Int64
    /// Timeline time reached, seconds from the export's start.
    public let time: Time
    /// True on the last report, after the file is complete.
    public let done: Bool
}

/// Renders a compiled project into a file (the AVAssetExportSession analogue).
///
/// One frame at a time, in output order: the video composition instruction covering the frame's time picks the
/// layers, each layer's track yields its sample-and-hold source picture, the compositor draws them, and the
/// encoder takes the result; the audio mix fills samples up to the end of the same frame, so the muxer receives
/// both streams interleaved and memory stays flat however long the timeline is.
public final class ExportSession {
    /// Where an export stands (AVAssetExportSession's status).
    public enum Status: Sendable, Equatable {
        case waiting, exporting, completed, failed, cancelled
    }

    /// The export's state; set on the exporting thread.
    public private(set) var status = Status.waiting
    /// The project being exported.
    public let project: CompiledProject
    private let facts: [String: MediaFactsResult]
    private let policy: MediaPolicy
    private let cancellation: CancellationFlag
    /// The compositor that draws each frame: the one the video composition names (built-in by default),
    /// unless replaced before `export`.
    public var compositor: VideoCompositor
    /// Called after every frame and once more with `done` at the end, on the exporting thread.
    public var onProgress: ((ExportProgress) -> Void)?
    /// Encoder threads; 0 lets FFmpeg choose. Decoder threads come from the media policy.
    public var encoderThreads = 0
    /// The temporary file being written, while there is one (for a last-resort cleanup on signals).
    public var onTemporaryFile: ((String?) -> Void)?

    /// Prepares an export of `project`, reading sources described by `facts` through `policy`.
    public init(project: CompiledProject, facts: [String: MediaFactsResult], policy: MediaPolicy,
                cancellation: CancellationFlag = CancellationFlag()) {
        self.project = project
        self.facts = facts
        self.policy = policy
        self.cancellation = cancellation
        compositor = makeCompositor(named: project.videoComposition.compositor.rawValue) ?? BuiltInCompositor()
    }

    /// Asks a running export to stop at its next frame; safe from any thread.
    public func cancel() {
        cancellation.cancel()
    }

    /// Renders the whole export range to `destination`; on any failure nothing is left behind.
    public func export(to destination: ExportDestination, overwrite: Bool) throws(RenderError) {
        status = .exporting
        do {
            try exportOnce(to: destination, overwrite: overwrite)
            status = .completed
        } catch {
            status = error.kind == .cancelled ? .cancelled : .failed
            throw error
        }
    }

    private func exportOnce(to destination: ExportDestination, overwrite: Bool) throws(RenderError) {
        let settings = try EncodingSettings(project: project, destination: destination, threads: encoderThreads)
        switch destination {
        case .standardOutput:
            try render(into: .standardOutput, settings: settings)
        case .file(let path):
            let file = try OutputFile.prepare(path: path, overwrite: overwrite)
            onTemporaryFile?(file.temporaryPath)
            defer { onTemporaryFile?(nil) }
            do {
                try render(into: .file(file.temporaryPath), settings: settings)
            } catch {
                file.discard()
                throw error
            }
            try file.commit(overwrite: overwrite)
        }
        onProgress?(ExportProgress(
            frame: project.frameCount, frames: project.frameCount, time: project.exportRange.duration, done: true))
    }

    private func render(into destination: MuxerDestination, settings: EncodingSettings) throws(RenderError) {
        let muxer: Muxer
        let videoEncoder: VideoEncoder
        var audioEncoder: AudioEncoder?
        do {
            muxer = try Muxer(
                destination: destination, formatName: settings.container,
                metadata: project.output.metadata.map { ($0.key, $0.value) }, faststart: project.output.faststart)
            videoEncoder = try muxer.addVideo(settings.video)
            if let audio = settings.audio { audioEncoder = try muxer.addAudio(audio) }
            try muxer.start()
        } catch {
            throw RenderError(media: error)
        }

        let canvas = project.renderSize
        let queue: CompositionQueue
        do {
            queue = try CompositionQueue(
                compositor: compositor,
                renderContext: RenderContext(
                    size: canvas, renderScale: project.videoComposition.renderScale, pixelFormat: .yuv420p))
        } catch {
            throw RenderError(media: error)
        }
        // On any early exit, stop the compositor threads' work before the sources go away.
        defer { queue.cancelAll() }
        let sources = VideoSources(project: project, facts: facts, policy: policy)
        var mixer: AudioMixer?
        var samples: SampleBuffers?
        if let audio = settings.audio {
            mixer = try AudioMixer(
                project: project, facts: facts, policy: policy,
                sampleRate: audio.sampleRate, channels: audio.channels)
            samples = SampleBuffers(channels: audio.channels, capacity: AudioMixer.maximumChunk)
        }

        let composition = project.videoComposition
        let evaluator = LayerEvaluator(geometryScale: Double(canvas.width) / Double(max(1, composition.renderSize.width)))
        let frameDuration = project.frameDuration
        let range = project.exportRange
        let sampleRate = Int64(settings.audio?.sampleRate ?? 48000)
        let firstSample: Int64
        do {
            firstSample = try range.start.count(atRate: sampleRate, rounding: .nearest)
        } catch {
            throw RenderError(.invalid, "the export range start \(range.start) s is out of range")
        }
        var samplesWritten: Int64 = 0
        var instructionIndex = -1

        /// Encodes the oldest composed frame, then the audio up to its end, in output order.
        func finish(_ next: () throws(MediaError) -> ComposedFrame?) throws(RenderError) {
            let done: ComposedFrame
            do {
                guard let composed = try next() else { return }
                done = composed
                try videoEncoder.encode(done.frame, index: done.frameIndex)
            } catch {
                throw RenderError(media: error)
            }
            let n = done.frameIndex
            if let mixer, let samples, let audioEncoder {
                let frameEnd: Int64
                do {
                    frameEnd = try Time.frames(n + 1, frameDuration: frameDuration)
                        .count(atRate: sampleRate, rounding: .nearest)
                } catch {
                    throw RenderError(.internal, "frame \(n) cannot be placed on the sample grid")
                }
                while samplesWritten < frameEnd {
                    let count = Int(min(Int64(AudioMixer.maximumChunk / 2), frameEnd - samplesWritten))
                    try mixer.mix(from: firstSample + samplesWritten, count: count, into: samples)
                    do {
                        try audioEncoder.encode(samples.readOnly, count: count)
                    } catch {
                        throw RenderError(media: error)
                    }
                    samplesWritten += Int64(count)
                }
            }
            let offset = (try? Time.frames(n, frameDuration: frameDuration)) ?? .zero
            onProgress?(ExportProgress(frame: n + 1, frames: project.frameCount, time: offset, done: false))
        }

        for n in 0..<project.frameCount {
            if cancellation.isCancelled { throw RenderError(.cancelled, "interrupted") }
            let offset: Time, time: Time
            do {
                offset = try Time.frames(n, frameDuration: frameDuration)
                time = try range.start + offset
            } catch {
                throw RenderError(.internal, "frame \(n) lies outside the representable time range")
            }

            let previous = instructionIndex
            instructionIndex = Self.instruction(in: composition.instructions, at: time, from: max(0, instructionIndex))
            guard instructionIndex < composition.instructions.count else {
                throw RenderError(.internal, "no video composition instruction covers \(time) s")
            }
            let instruction = composition.instructions[instructionIndex]
            if instructionIndex != previous {
                sources.releaseReaders(keeping: Set(instruction.layers.map(\.track)))
            }

            let request = try evaluator.request(
                frameIndex: n, at: time, instruction: instruction, background: composition.background, sources: sources)
            if queue.pendingCount >= queue.depth {
                try finish(queue.next)
            }
            do {
                try queue.submit(request)
            } catch {
                throw RenderError(media: error)
            }
        }
        while queue.pendingCount > 0 {
            try finish(queue.next)
        }
        if cancellation.isCancelled { throw RenderError(.cancelled, "interrupted") }
        do {
            try muxer.finish()
        } catch {
            throw RenderError(media: error)
        }
    }

    /// The index of the instruction containing `time`, searching forwards from `start` (instructions tile the timeline).
    static func instruction(in instructions: [VideoInstruction], at time: Time, from start: Int) -> Int {
        var index = start < instructions.count && instructions[start].timeRange.start <= time ? start : 0
        while index < instructions.count, instructions[index].timeRange.end <= time { index += 1 }
        return index
    }

    /// Evaluates a layer instruction's ramps at `time` for one source picture.
}
