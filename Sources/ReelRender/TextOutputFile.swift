import Foundation

/// Writing a small text file (an imported project, an exported OTIO file) the way exports write media: to a
/// temporary file beside the destination, renamed onto it only when complete, never over an existing file
/// without `overwrite`.
public enum TextOutputFile {
    /// Writes `text` to `path` atomically; errors are `.cannotCreateOutput` (exists, missing or unwritable
    /// folder) or `.io`.
    public static func write(_ text: String, to path: String, overwrite: Bool) throws(RenderError) {
        let file = try OutputFile.prepare(path: path, overwrite: overwrite)
        guard FileManager.default.createFile(atPath: file.temporaryPath, contents: Data(text.utf8)) else {
            file.discard()
            throw RenderError(.io, "cannot write \(path)")
        }
        try file.commit(overwrite: overwrite)
    }
}
