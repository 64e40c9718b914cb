import ReelMedia

/// `reel --version`: reel's own version, then the FFmpeg release and libraries it runs with, one per line as
/// `ffmpeg -version` lists them, so a bug report can say exactly what decoded and encoded its files.
enum VersionText {
    /// reel's version (semantic versioning; the project format it reads is version 1 whatever this says).
    static let reel = "0.1.0"

    static var text: String {
        var lines = ["reel \(reel) (project format 1)", "FFmpeg \(LibraryVersions.ffmpegRelease)"]
        for library in LibraryVersions.libraries {
            lines.append("  \(library.name) \(library.version)")
        }
        return lines.joined(separator: "\n")
    }
}
