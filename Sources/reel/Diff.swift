import ArgumentParser
import Foundation
import ReelInterchange
import ReelMedia
import ReelModel
import ReelRender
import ReelTime

/// `reel diff`: what changed between two versions of a project, as a viewer sees and hears it.
struct Diff: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show what changed between two versions of a project: pictures, sound and keys.",
        discussion: """
            The compiled projects are compared frame by frame first (no decoding); only frames that differ there \
            are rendered, from both versions at a reduced size, to confirm (docs/format.md, "reel diff"). The \
            sound is compared in 100 ms blocks when the compiled audio differs. Without -o or --json a summary is \
            printed; -o writes an HTML page with each changed stretch before and after and its PSNR, and the \
            changed keys; --json prints the changed ranges in seconds.

            Exit status: 0 when nothing a viewer sees or hears changed (keys may have), 1 when something did, \
            and the codes below for errors.

            Examples:
              reel diff old.json new.json
              reel diff old.json new.json --json | jq '.pictures'
              reel diff old.json new.json -o diff.html
            """ + "\n\n" + exitCodesHelp)

    @Argument(help: "The first version of the project.")
    var before: String

    @Argument(help: "The second version of the project.")
    var after: String

    @Option(name: .shortAndLong, help: "Write an HTML page of the changes.")
    var output: String?

    @Flag(help: "Print the changes as JSON on standard output.")
    var json = false

    @Flag(help: "Replace the page if it exists.")
    var force = false

    @OptionGroup var media: MediaOptions

    @OptionGroup var interchange: InterchangeArguments

    func validate() throws {
        if before == "-" && after == "-" {
            throw Exit.report(.usage("only one of the two projects can come from standard input"))
        }
    }

    func run() throws {
        media.applyLogLevel()
        let policy = media.policy
        let first = try load(before, policy: policy), second = try load(after, policy: policy)
        if let output {
            try OutputTarget.refuseInputs(output, inputs: [before, after])
            try OutputTarget.refuseAssets(output, of: first.compiled)
            try OutputTarget.refuseAssets(output, of: second.compiled)
            try OutputTarget.refuseExisting(output, force: force)
        }
        let diff = try ProjectDiff.compare(
            before: first.compiled, beforeFacts: first.facts, beforeName: before, beforeDocument: first.document,
            after: second.compiled, afterFacts: second.facts, afterName: after, afterDocument: second.document,
            policy: policy, isCancelled: { Interrupts.cancellation.isCancelled })
        if let output {
            try OutputDestination.withFolders(of: [output], create: false) {
                try TextOutputFile.write(diff.html(), to: output, overwrite: force)
            }
        }
        if json {
            printOutput(diff.json().trimmingCharacters(in: .newlines))
        } else if output == nil {
            printOutput(Self.summary(diff))
        }
        MediaOptions.reportConcealments(in: policy)
        if diff.changed { throw ExitCode.changed }
    }

    /// A checked project and, for a JSON document, its parsed tree.
    private func load(_ argument: String, policy: MediaPolicy) throws
        -> (compiled: CompiledProject, facts: [String: MediaFactsResult], document: JSON?)
    {
        let loaded = try loadProject(argument, interchange, policy: policy)
        Exit.report(loaded.diagnostics, file: ProjectFile(argument: argument))
        guard let compiled = loaded.compiled, let catalog = loaded.catalog else {
            throw CommandFailure.rejected(loaded.diagnostics)
        }
        let document = argument != "-" && InterchangeFormat(path: argument) == nil
            ? (try? readProjectFile(argument)).flatMap { try? JSONParser.parse($0.bytes) } : nil
        return (compiled, catalog.facts, document)
    }

    /// Lines for a person: each changed stretch and the key changes.
    static func summary(_ diff: ProjectDiff) -> String {
        var lines = [diff.changed ? "changed" : "unchanged (nothing a viewer sees or hears)"]
        for change in diff.pictures {
            let psnr = change.psnr.map { $0.isFinite ? String(format: "%.2f dB", $0) : "identical" } ?? "one side only"
            lines.append("  picture \(ReviewPage.seconds(change.start))–\(ReviewPage.seconds(change.end)) s "
                         + "(frames \(change.frames.lowerBound)–\(change.frames.upperBound - 1)), PSNR \(psnr)")
        }
        for change in diff.sound {
            lines.append(String(format: "  sound %.1f–%.1f s", change.start, change.end))
        }
        for change in diff.keys {
            lines.append("  \(change.kind.rawValue) \(change.path)"
                         + (change.before.map { ": " + $0 } ?? "") + (change.after.map { " → " + $0 } ?? ""))
        }
        lines.append("  \(diff.candidateFrames) of \(diff.frameCount) frames differed when compiled; "
                     + "\(diff.renderedFrames) rendered to confirm")
        return lines.joined(separator: "\n")
    }
}
