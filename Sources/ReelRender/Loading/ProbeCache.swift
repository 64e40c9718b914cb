import ReelMedia
import Synchronization

/// Probe results kept for the life of one command that loads many projects (the rows of `reel batch`), so media
/// and fonts the rows share are probed once, not once a row.
///
/// Files are keyed by their resolved path; a file that changes during the batch is not probed again. Failures are
/// kept too, so a missing photo named by a hundred rows is looked for once.
public final class ProbeCache: Sendable {
    private let media = Locked<[String: Result<MediaInfo, MediaError>]>([:])
    private let families = Locked<[String]?>(nil)
    private let probes = Atomic<Int>(0)

    /// An empty cache.
    public init() {}

    /// How many files were actually probed (not answered from the cache).
    public var probeCount: Int { probes.load(ordering: .relaxed) }

    /// The probe of `path`, from the cache or probed now under `policy`.
    public func probe(_ path: String, policy: MediaPolicy) throws(MediaError) -> MediaInfo {
        try probe(path, opener: MediaFileOpener(policy: policy))
    }

    /// The probe of `path`, from the cache or probed now through `opener`.
    func probe(_ path: String, opener: any SourceOpener) throws(MediaError) -> MediaInfo {
        if let known = media.withLock({ $0[path] }) { return try known.get() }
        probes.add(1, ordering: .relaxed)
        let result: Result<MediaInfo, MediaError>
        do {
            result = .success(try opener.probe(path: path))
        } catch {
            result = .failure(error)
        }
        media.withLock { $0[path] = result }
        return try result.get()
    }

    /// The installed font families, listed once.
    func fontFamilies() -> [String] {
        if let known = families.withLock({ $0 }) { return known }
        let listed = (try? TextRasterizer.families()) ?? []
        families.withLock { $0 = listed }
        return listed
    }
}
