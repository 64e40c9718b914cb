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
        if chunks < 1 { throw Exit.report(.usage("--chunks must be 1 or more")) }
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
        if parts.isEmpty { throw Exit.report(.usage("name the parts to join")) }
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
        let plan = try JoinPlan(project: compiled, parts: parts, policy: media.policy)
        let destination = plan.destination
        let joiner = ChunkJoiner(project: compiled, plan: plan.chunks, facts: catalog.facts, policy: media.policy)
        try OutputTarget.refuseInputs(destination, inputs: [project] + parts)
        try OutputDestination.withFolders(of: [destination], create: mkdir) {
            try joiner.join(parts: plan.videoParts, audio: plan.audioPart, to: destination, overwrite: force)
        }
        if !quiet { printError("wrote \(destination)") }
    }
}
