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
    /// project's inputs. Exit 73. Works on a project with errors too, so one run says everything.
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
        return found
    }

    /// The problems of one destination, `path` (absolute), reported at `jsonPath`.
    private static func problems(of path: String, at jsonPath: JSONPath, compiled: CompiledProject?) -> [Diagnostic] {
        func problem(_ message: String, hint: String) -> [Diagnostic] {
            [Diagnostic(path: jsonPath, message: message, hint: hint, category: .cannotCreateOutput)]
        }
        let folder = OutputPlacement.folder(of: path)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory), isDirectory.boolValue else {
            return problem("the output folder \(folder) does not exist", hint: "create it, pass --mkdir to reel render to create it, or pass -o to render elsewhere")
        }
        guard access(folder, W_OK) == 0 else {
            return problem("the output folder \(folder) is not writable", hint: "pass -o to render elsewhere")
        }
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
            return problem("\(path) is a directory", hint: "name a file inside it")
        }
        if let compiled, let clash = InputProtection.clash(output: path, project: compiled) {
            return problem("\(path) is the file of \(clash.role); an output never replaces an input",
                           hint: "choose another output path")
        }
        return []
    }
}
