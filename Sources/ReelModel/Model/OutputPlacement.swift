import Foundation

/// Where the files of one render go (docs/outputs.md, "Where outputs go"), the one rule every command follows:
///
/// - the main output is `output.path` resolved against the project's folder, unless the command line moved it
///   (`-o`, relative to the working directory; `--output-dir`), in which case `output.path` already holds the
///   absolute path the command chose;
/// - a relative path in `outputs[i].path` or `outputs[i].master` resolves against the folder of the main output as
///   finally chosen, so `-o build/job42/master.mp4` takes the whole set to `build/job42/`; absolute paths stay;
/// - without a main file (standard output, or no `output.path` and no `-o` yet), relative paths of `outputs` resolve
///   against the project's folder, as every other path of the project does.
///
/// Paths come back absolute and normalised (`.` and `..` removed lexically), as they are compared for clashes.
public struct OutputPlacement: Sendable, Equatable {
    /// The main output file, absolute and normalised; nil for standard output or when none is named.
    public let mainPath: String?
    /// The folder relative paths of `outputs` resolve against.
    public let folder: String

    /// The placement of a project whose main output is `output` and whose relative paths resolve against
    /// `baseDirectory` (the project file's folder).
    public init(output: OutputSettings, baseDirectory: String) {
        if let written = output.path, written != "-" {
            let main = Self.normalised(ReelModel.resolve(written, against: baseDirectory))
            mainPath = main
            folder = Self.folder(of: main)
        } else {
            mainPath = nil
            folder = Self.normalised(baseDirectory.isEmpty ? FileManager.default.currentDirectoryPath : baseDirectory)
        }
    }

    /// The placement of a render whose main output is written to `mainFile` (absolute, or relative to the working
    /// directory).
    public init(mainFile: String) {
        mainPath = Self.normalised(mainFile)
        folder = Self.folder(of: mainPath!)
    }

    /// `path` (an entry of `outputs`, or its `master`) as this placement puts it: absolute and normalised.
    public func resolve(_ path: String) -> String {
        Self.normalised(path.hasPrefix("/") ? path : folder + "/" + path)
    }

    /// `path` with `.` and `..` components removed lexically (symbolic links are not followed).
    public static func normalised(_ path: String) -> String {
        URL(fileURLWithPath: path).standardizedFileURL.path
    }

    /// The folder that holds `path`.
    public static func folder(of path: String) -> String {
        URL(fileURLWithPath: path).deletingLastPathComponent().standardizedFileURL.path
    }
}

extension CompiledProject {
    /// Where this render's files go (`OutputPlacement`).
    public var placement: OutputPlacement { OutputPlacement(output: output, baseDirectory: baseDirectory) }
}

extension Project {
    /// Where this project's files go (`OutputPlacement`).
    public var placement: OutputPlacement { OutputPlacement(output: output, baseDirectory: baseDirectory) }
}
