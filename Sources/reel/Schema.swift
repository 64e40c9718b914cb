import ArgumentParser
import ReelModel

/// `reel schema`: print the JSON Schema (draft 2020-12) of the project format, or its key tables in Markdown.
struct Schema: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print the JSON Schema (draft 2020-12) of the project format v1.",
        discussion: """
            Editors complete and check projects that name the schema in a top-level "$schema" key. Every property \
            carries a description, and a default when what holds without it is a fixed value. The schema's $id, \
            urn:reel:project-format:1, names format 1; it is not a URL to fetch (save the schema to a file).

            --markdown prints the same tables as Markdown: the key tables of docs/format.md, the format's \
            reference (scripts/update-format-doc.py puts them in place).

            Examples:
              reel schema > reel.schema.json    # then "$schema": "./reel.schema.json" in a project
              reel schema --markdown
            """ + "\n\n" + exitCodesHelp)

    @Flag(help: "Print the key tables of docs/format.md (Markdown) instead of the JSON Schema.")
    var markdown = false

    func run() throws {
        if markdown {
            printOutput(String(FormatReference.markdown.dropLast()))
        } else {
            printOutput(ProjectSchema.document)
        }
    }
}
