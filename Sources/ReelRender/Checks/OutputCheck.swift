import Foundation
import ReelModel

#if canImport(Glibc)
import Glibc
#endif

/// What `reel validate` checks about a project's output before any render: that a project which validates
/// does not then fail for its destination. An existing output is not a problem here (`--force` may replace it).
public enum OutputCheck {
    /// Problems with the destinations of `project`'s outputs: `output.path` (relative to the project's folder, or as
    /// `-o` placed it) and each of `outputs` (placed by `OutputPlacement`): a folder that is missing or not
    /// writable, a path that is a directory, or (given the compiled form, whose assets are resolved) one of the
    /// project's inputs. Exit 73. A missing folder is a warning (`reel render --mkdir` creates it), so that CI can
    /// validate a fresh checkout; `validate --strict` makes it an error of the same code, and a render without
    /// `--mkdir` still fails. Works on a project with errors too, so one run says everything.
    public static func diagnostics(for project: Project, compiled: CompiledProject?) -> [Diagnostic] {
        let placement = project.placement
        var found: [Diagnostic] = []
        if let main = placement.mainPath {
            found += problems(of: main, at: JSONPath.root.key("output").key("path"), compiled: compiled)
        }
        for (index, entry) in project.outputs.enumerated() {
            guard let written = entry.path, written != "-" else { continue }
            // The entry's own container decides which files it writes (an image sequence, a package).
            var alone = compiled
            alone?.output = compiled?.outputs.indices.contains(index) == true ? compiled!.outputs[index] : entry
            found += problems(of: placement.resolve(written),
                              at: JSONPath.root.key("outputs").index(index).key("path"), compiled: alone)
        }
        if let compiled { found += unannouncedChapters(compiled) }
        return found
    }

    /// A warning when the render has chapters and an HLS output that no master playlist lists: chapters reach HLS
    /// players only through the master (Apple's `com.apple.hls.chapters`), and an HLS output is in one when it
    /// names its `master` or when two or more name none (`MasterPlaylist.plan`).
    private static func unannouncedChapters(_ compiled: CompiledProject) -> [Diagnostic] {
        guard !ChapterMark.marks(compiled.composition.chapters, over: compiled.exportRange).isEmpty else { return [] }
        let outputs = [(JSONPath.root.key("output"), compiled.output)]
            + compiled.outputs.enumerated().map { (JSONPath.root.key("outputs").index($0.offset), $0.element) }
        let alone = outputs.filter { $0.1.format == .m3u8 && $0.1.master == nil }
        guard alone.count == 1, let (path, _) = alone.first else { return [] }
        return [Diagnostic(.warning, path: path.key("path"),
                           message: "this HLS output carries no chapters: HLS players read them from a master playlist",
                           hint: "name one with \"master\" (e.g. \"master.m3u8\" beside the playlist), and reel writes "
                               + "the chapters beside it and announces them there")]
    }

    /// The problems of one destination, `path` (absolute), reported at `jsonPath`. An existing file is not one:
    /// `--force` may replace it.
    private static func problems(of path: String, at jsonPath: JSONPath, compiled: CompiledProject?) -> [Diagnostic] {
        let destination = OutputDestination(path)
        guard let fault = destination.fault(overwrite: true, project: compiled) else { return [] }
        var diagnostic = destination.diagnostic(fault, at: jsonPath)
        if fault == .folderMissing {
            diagnostic.severity = .warning
            diagnostic.hint = "reel render --mkdir creates it; or create it, or pass -o to render elsewhere"
        }
        return [diagnostic]
    }
}
