import ArgumentParser
import Foundation
import ReelModel
import ReelRender

/// `reel plan PROJECT --chunks N`: the frame ranges of a chunked render, for a scheduler to hand out.
struct Plan: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Split a render into chunks that separate processes or machines render (see docs/chunks.md).",
        discussion: exitCodesHelp)

    @Argument(help: "The project file (.json, .otio or .edl), or - for standard input.")
    var project: String

    @Option(help: "How many chunks.")
    var chunks: Int

    @Flag(help: "Print the plan as one JSON object on standard output.")
    var json = false

    @OptionGroup var media: MediaOptions

    @OptionGroup var interchange: InterchangeArguments

    func validate() throws {
        if chunks < 1 { throw ValidationError("--chunks must be 1 or more") }
    }

    func run() throws {
        media.applyLogLevel()
        let loaded = try loadProject(project, interchange, policy: media.policy)
        Exit.report(loaded.diagnostics)
        guard let compiled = loaded.compiled else { throw CommandFailure.rejected(loaded.diagnostics) }
        let plan = try ChunkPlan(project: compiled, count: chunks)
        let seconds = { (frame: Int64) -> String in
            let value = Double(frame) * Double(plan.frameRate.denominator) / Double(plan.frameRate.numerator)
            return String(format: "%.3f", value)
        }
        if json {
            let list = plan.chunks.enumerated().map { index, range in
                "{\"index\":\(index),\"start\":\(range.lowerBound),\"end\":\(range.upperBound),"
                    + "\"startTime\":\(seconds(range.lowerBound)),\"endTime\":\(seconds(range.upperBound))}"
            }
            printOutput("{\"frames\":\(plan.frameCount),\"frameRate\":\"\(plan.frameRate.numerator)/\(plan.frameRate.denominator)\","
                        + "\"fingerprint\":\"\(plan.fingerprint)\",\"chunks\":[\(list.joined(separator: ","))]}")
        } else {
            printOutput("\(plan.frameCount) frames in \(plan.chunks.count) chunks (fingerprint \(plan.fingerprint))")
            for (index, range) in plan.chunks.enumerated() {
                printOutput("chunk \(index)/\(plan.chunks.count): frames \(range.lowerBound)–\(range.upperBound - 1) "
                            + "(\(seconds(range.lowerBound)) s – \(seconds(range.upperBound)) s)")
            }
        }
    }
}

/// `reel join PROJECT PART… [AUDIO] -o OUT`: the parts of a chunked render joined, with the whole timeline's audio
/// copied from the audio part or encoded here.
struct Join: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Join the parts of a chunked render, with the audio part's packets or the timeline's audio encoded once.",
        discussion: """
            Give every video part (reel render --chunk K/N) in any order. With the audio part (reel render \
            --chunk audio -o sound.mov) among them, its packets are copied: nothing is encoded and the sound is \
            the one a one-process render writes. Without it, the join mixes and encodes the timeline's audio \
            itself (docs/chunks.md).

            Examples:
              reel join edit.json part-*.mkv sound.mov -o final.mp4
              reel join edit.json part-0.mkv part-1.mkv -o final.mkv --force
            """ + "\n\n" + exitCodesHelp)

    @Argument(help: "The project file the parts were rendered from.")
    var project: String

    @Argument(help: "The parts (reel render --chunk K/N) and, if rendered, the audio part (--chunk audio), in any order.")
    var parts: [String]

    @Option(name: .shortAndLong, help: "Output file (overrides output.path).")
    var output: String?

    @Flag(help: "Replace the output file if it exists.")
    var force = false

    @Flag(help: "Create the output folder if it does not exist.")
    var mkdir = false

    @Flag(name: .shortAndLong, help: "Write nothing but errors.")
    var quiet = false

    @OptionGroup var media: MediaOptions

    @OptionGroup var interchange: InterchangeArguments

    func validate() throws {
        if parts.isEmpty { throw ValidationError("name the parts to join") }
    }

    func run() throws {
        media.applyLogLevel()
        var overrides = ProjectOverrides()
        overrides.place(output: output, outputDirectory: nil)
        let loaded = try loadProject(project, interchange, policy: media.policy, overrides: overrides)
        Exit.report(quiet ? loaded.diagnostics.filter { $0.severity == .error } : loaded.diagnostics)
        guard let compiled = loaded.compiled, let catalog = loaded.catalog else {
            throw CommandFailure.rejected(loaded.diagnostics)
        }
        guard let destination = compiled.placement.mainPath else {
            throw CommandFailure(.invalid, "$.output.path: no output file; set output.path or pass -o")
        }
        // Parts are H.264 in Matroska and the join copies their packets: an output that needs another codec or
        // container cannot be made of them, whatever the parts hold, so say that first (not "stale parts").
        if let format = compiled.output.format, ![.mp4, .mov, .mkv].contains(format) {
            let codec = compiled.output.video.codec == .h264 ? ""
                : " of \(compiled.output.video.codec.rawValue) video, but chunk parts are H.264"
            throw CommandFailure(.invalid, "\(destination): a join cannot write a .\(format.rawValue) file\(codec): "
                                 + "it copies the parts' packets unchanged into .mp4, .mov or .mkv"
                                 + "\n       hint: name the joined file .mp4, .mov or .mkv")
        }
        if compiled.output.video.codec != .h264 {
            throw CommandFailure(.invalid, "output.video.codec is \(compiled.output.video.codec.rawValue), but chunk "
                                 + "parts are H.264 (chunked renders encode H.264 only), which a join copies unchanged"
                                 + "\n       hint: set output.video.codec to h264, or render in one process")
        }
        // The plan's chunk count comes from the parts themselves; the fingerprint then checks it.
        var count: Int?
        var videoParts: [String] = []
        var audioPart: String?
        for part in parts {
            switch try ChunkJoiner.kind(ofPart: part, policy: media.policy) {
            case nil:
                throw CommandFailure(.invalid, "\(part) is not a part of a chunked reel render (no reel_chunk tag)")
            case .audio:
                if let audioPart {
                    throw CommandFailure(.invalid, "two audio parts, \(audioPart) and \(part): give one")
                }
                audioPart = part
            case .video(let found):
                if let count, count != found {
                    throw CommandFailure(.invalid, "the parts come from plans of \(count) and \(found) chunks")
                }
                count = found
                videoParts.append(part)
            }
        }
        guard let count else {
            throw CommandFailure(.invalid, "\(audioPart ?? "the input") is the audio part; name the video parts "
                                 + "(reel render --chunk K/N) too")
        }
        let plan = try ChunkPlan(project: compiled, count: count)
        let joiner = ChunkJoiner(project: compiled, plan: plan, facts: catalog.facts, policy: media.policy)
        try OutputTarget.refuseInputs(destination, inputs: [project] + parts)
        try OutputDestination.withFolders(of: [destination], create: mkdir) {
            try joiner.join(parts: videoParts, audio: audioPart, to: destination, overwrite: force)
        }
        if !quiet { printError("wrote \(destination)") }
    }
}
