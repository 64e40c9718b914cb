import ArgumentParser
import ReelModel

/// `reel schema`: print the JSON Schema (draft 2020-12) of the project format.
struct Schema: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print the JSON Schema (draft 2020-12) of the project format v1.")

    func run() throws {
        printOutput(ProjectSchema.document)
    }
}
