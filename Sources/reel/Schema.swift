import ArgumentParser
import ReelModel

/// `reel schema`: print the JSON Schema (draft 2020-12) of the project format.
struct Schema: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print the JSON Schema (draft 2020-12) of the project format v1.",
        discussion: """
            Editors complete and check projects that name the schema in a top-level "$schema" key.

            Example:
              reel schema > reel.schema.json    # then "$schema": "./reel.schema.json" in a project
            """)

    func run() throws {
        printOutput(ProjectSchema.document)
    }
}
