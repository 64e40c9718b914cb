#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What `stat(2)` and `access(2)` say of a local path, told without opening it: opening a FIFO blocks until a
/// writer comes, so every input (media in ReelMedia, caption files, LUTs and fonts in ReelModel) is classified here
/// first and only a readable regular file is opened.
public enum LocalFileState: Sendable, Equatable {
    /// A regular file this process may read (a symbolic link to one counts).
    case readable
    /// Nothing there (or a path too long, or through a non-directory).
    case missing
    /// There, but `stat` or `access` failed: the C library's reason.
    case unreadable(reason: String)
    /// Not a regular file: "a directory", "a FIFO", "a device", "a socket" or "not a regular file".
    case notRegular(what: String)

    /// The state of `path` (absolute, or relative to the working directory).
    public init(path: String) {
        var info = stat()
        if path.isEmpty || stat(path, &info) != 0 {
            let code = errno
            self = path.isEmpty || code == ENOENT || code == ENOTDIR || code == ENAMETOOLONG
                ? .missing : .unreadable(reason: String(cString: strerror(code)))
            return
        }
        switch info.st_mode & S_IFMT {
        case S_IFREG:
            self = access(path, R_OK) == 0 ? .readable : .unreadable(reason: String(cString: strerror(errno)))
        case S_IFDIR: self = .notRegular(what: "a directory")
        case S_IFIFO: self = .notRegular(what: "a FIFO")
        case S_IFCHR, S_IFBLK: self = .notRegular(what: "a device")
        case S_IFSOCK: self = .notRegular(what: "a socket")
        default: self = .notRegular(what: "not a regular file")
        }
    }
}
