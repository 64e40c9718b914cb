import Foundation

/// Finds the file an imported clip means (docs/interchange.md, "Relinking").
///
/// In order: the relink map (`--relink map.json`: keys are target URLs, paths, clip names or reel names, values
/// paths relative to the map's folder), the locator itself (`file://` URLs, absolute paths, paths relative to the
/// imported file's folder), then each `--media-dir` in turn for the locator's file name, the clip name and the reel
/// name — an exact file name first, then a file whose name without extension is the clip or reel name.
public struct MediaResolver: Sendable {
    /// Folders searched by name, in order.
    public var mediaDirectories: [String]
    /// Name, URL or path → file path (absolute, or relative to `relinkBase`).
    public var relinkMap: [String: String]
    /// The folder relink map values are relative to.
    public var relinkBase: String
    /// The folder of the imported file: relative locators resolve against it.
    public var baseDirectory: String

    /// A resolver; directories are made absolute against the working directory.
    public init(mediaDirectories: [String] = [], relinkMap: [String: String] = [:], relinkBase: String = "",
                baseDirectory: String) {
        let cwd = FileManager.default.currentDirectoryPath
        self.mediaDirectories = mediaDirectories.map { $0.hasPrefix("/") ? $0 : cwd + "/" + $0 }
        self.relinkMap = relinkMap
        self.relinkBase = relinkBase
        self.baseDirectory = baseDirectory
    }

    /// Reads a relink map: a JSON object of strings.
    public static func readRelinkMap(_ path: String) throws -> [String: String] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw RelinkMapError(message: "\(path): cannot read the relink map")
        }
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw RelinkMapError(message: "\(path): a relink map is a JSON object of names to file paths")
        }
        var map: [String: String] = [:]
        for (key, value) in object {
            guard let text = value as? String else {
                throw RelinkMapError(message: "\(path): the value of \"\(key)\" is not a string")
            }
            map[key] = text
        }
        return map
    }

    /// A problem with the relink map file.
    public struct RelinkMapError: Error, Sendable {
        /// What is wrong, naming the file.
        public let message: String
    }

    /// The file for `link`, or nil with the places looked at.
    public func resolve(_ link: MediaLink) -> (path: String?, tried: [String]) {
        var tried: [String] = []
        let fileName = link.locator.map(Self.fileName(of:))
        for key in [link.locator, fileName].compactMap({ $0 }) + link.names {
            if let mapped = relinkMap[key] {
                let path = mapped.hasPrefix("/") ? mapped : relinkBase + "/" + mapped
                tried.append(path)
                if isFile(path) { return (standardized(path), tried) }
            }
        }
        if let locator = link.locator, let path = localPath(locator) {
            tried.append(path)
            if isFile(path) { return (standardized(path), tried) }
        }
        for directory in mediaDirectories {
            for name in [fileName].compactMap({ $0 }) + link.names where !name.isEmpty && !name.contains("/") {
                let path = directory + "/" + name
                tried.append(path)
                if isFile(path) { return (standardized(path), tried) }
            }
            let entries = ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).sorted()
            for name in link.names where !name.isEmpty {
                if let match = entries.first(where: { Self.stem($0) == name }) ?? entries.first(where: {
                    Self.stem($0).lowercased() == name.lowercased()
                }) {
                    let path = directory + "/" + match
                    if isFile(path) { return (standardized(path), tried) }
                }
            }
        }
        return (nil, tried)
    }

    /// A locator as a local path: `file://` URLs decoded, relative paths against the imported file's folder; nil
    /// for other schemes and Windows drive paths.
    func localPath(_ locator: String) -> String? {
        if locator.hasPrefix("file://") {
            let rest = String(locator.dropFirst(7))
            // file:///abs/path or file://localhost/abs/path
            let path = rest.hasPrefix("/") ? rest : String(rest.drop { $0 != "/" })
            return path.removingPercentEncoding ?? path
        }
        if locator.contains("://") || locator.contains("\\") || (locator.count > 1 && locator.dropFirst().first == ":") {
            return nil
        }
        return locator.hasPrefix("/") ? locator : baseDirectory + "/" + locator
    }

    /// The last component of a path, URL or Windows path.
    static func fileName(of locator: String) -> String {
        let decoded = locator.removingPercentEncoding ?? locator
        return String(decoded.split(whereSeparator: { $0 == "/" || $0 == "\\" }).last ?? Substring(decoded))
    }

    static func stem(_ name: String) -> String {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return name }
        return String(name[..<dot])
    }

    private func isFile(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && !isDirectory.boolValue
    }

    private func standardized(_ path: String) -> String {
        URL(fileURLWithPath: path).standardizedFileURL.path
    }
}
