import Foundation
import ReelModel
import ReelRender

#if canImport(Glibc)
import Glibc
#endif

/// What every command that writes a file checks first, so they all follow `render`'s rule (SPEC §7): an input
/// is never replaced (not even with `--force`), an existing file needs `--force`, and a missing folder is an error
/// (exit 73) unless `--mkdir` asks for it to be created; each fault is `OutputDestination`'s, worded as every other
/// writer words it. The writes themselves are atomic (`TextOutputFile`,
/// `ExportSession`: a temporary file beside the destination, renamed on success).
enum OutputTarget {
    /// Refuses `output` when it names one of `inputs` (the project file, parts to join, an EDL being imported),
    /// compared as `InputProtection` compares files (symbolic and hard links included). Exit 73.
    static func refuseInputs(_ output: String, inputs: [String]) throws {
        let destination = OutputDestination(output)
        if let fault = destination.fault(overwrite: true, folderMustExist: false,
                                         inputs: inputs.map { (role: "an input of this command", path: $0) }),
           case .isInput = fault {
            throw destination.error(fault)
        }
    }

    /// Refuses `output` when it names a file `project` reads (`InputProtection.inputs(of:)`). Exit 73.
    static func refuseAssets(_ output: String, of project: CompiledProject) throws {
        let destination = OutputDestination(output)
        if let fault = destination.fault(overwrite: true, folderMustExist: false, project: project),
           case .isInput = fault {
            throw destination.error(fault)
        }
    }

    /// Refuses an existing `output` without `force` (exit 73), before any work is done.
    static func refuseExisting(_ output: String, force: Bool) throws {
        let destination = OutputDestination(output)
        if let fault = destination.fault(overwrite: force, folderMustExist: false), fault == .isDirectory || fault == .exists {
            throw destination.error(fault)
        }
    }
}
