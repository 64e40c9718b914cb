import Foundation
import ReelModel

#if canImport(Glibc)
import Glibc
#endif

/// What `reel validate` checks about a project's output before any render: that a project which validates
/// does not then fail for its destination. An existing output is not a problem here (`--force` may replace it).
public enum OutputCheck {
    /// Problems with the destination of `project`'s `output.path` (relative to the project's folder): its folder
    /// is missing (a warning: `reel render --mkdir` creates it) or not writable, it is a directory, or (given the compiled form, whose assets are resolved) it
    /// names one of the project's inputs. Exit 73. Works on a project with errors too, so one run says everything.
    public static func diagnostics(for project: Project, compiled: CompiledProject?) -> [Diagnostic] {
        guard let written = project.output.path, written != "-" else { return [] }
        let path = URL(fileURLWithPath: project.resolvedPath(written)).standardizedFileURL.path
        let jsonPath = JSONPath.root.key("output").key("path")
        func problem(_ message: String, hint: String) -> [Diagnostic] {
            [Diagnostic(path: jsonPath, message: message, hint: hint, category: .cannotCreateOutput)]
        }
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory), isDirectory.boolValue else {
            // A warning, so that CI can validate a fresh checkout whose render will pass --mkdir; the render itself
            // still fails (73) without --mkdir, and `validate --strict` makes this an error of the same code.
            return [Diagnostic(.warning, path: jsonPath, message: "the output folder \(folder) does not exist",
                               hint: "reel render --mkdir creates it; or create it, or pass -o to render elsewhere",
                               category: .cannotCreateOutput)]
        }
        guard access(folder, W_OK) == 0 else {
            return problem("the output folder \(folder) is not writable", hint: "pass -o to render elsewhere")
        }
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
            return problem("\(path) is a directory", hint: "name a file inside it")
        }
        if let compiled, let clash = InputProtection.clash(output: path, project: compiled) {
            return problem("\(path) is the file of asset \"\(clash.asset)\"; an output never replaces an input",
                           hint: "choose another output path")
        }
        return []
    }
}
