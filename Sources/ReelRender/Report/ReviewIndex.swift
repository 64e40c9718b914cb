import Foundation

/// The index of a batch's review pages (`reel batch --report DIR`): one line per row with its first picture, its
/// status as the manifest records it, its output and a link to its page. Self-contained like `ReviewPage`.
public struct ReviewIndex: Sendable {
    /// One row of the batch.
    public struct Entry: Sendable {
        /// The row's number.
        public var row: Int
        /// Its output path, when it has one.
        public var output: String?
        /// `done`, `skipped`, `failed (exit N)`, `invalid: …`.
        public var status: String
        /// The row's page, relative to the index; nil for a row that has none.
        public var page: String?
        /// The row's first contact-sheet picture.
        public var picture: ReviewPage.Picture?

        /// An entry of the index.
        public init(row: Int, output: String?, status: String, page: String?, picture: ReviewPage.Picture?) {
            self.row = row
            self.output = output
            self.status = status
            self.page = page
            self.picture = picture
        }
    }

    /// The template's name.
    public var title: String
    /// The rows, in row order.
    public var entries: [Entry]

    /// An index of `entries`.
    public init(title: String, entries: [Entry]) {
        self.title = title
        self.entries = entries
    }

    /// The index as HTML; links are relative, so the folder can be moved as a whole.
    public func html() -> String {
        let e = ReviewPage.escaped
        let style = """
            body{font:14px/1.4 "DejaVu Sans",sans-serif;margin:16px 24px;color:#222}table{border-collapse:collapse}
            th,td{border:1px solid #ccc;padding:4px 8px;text-align:left;vertical-align:middle}img{width:160px;display:block}
            .done,.skipped{color:#2a7d2a}.failed,.invalid{color:#a00}
            """
        var page = ReviewPage.head(title: title + " — reel batch report", style: style) + """
            <h1>\(e(title)): \(entries.count) rows</h1>
            <table><tr><th>row</th><th>picture</th><th>status</th><th>output</th></tr>

            """
        for entry in entries {
            let picture = entry.picture.map { picture in
                "<img alt=\"\(picture.timecode)\" src=\"data:\(picture.mimeType);base64,"
                    + Data(picture.image).base64EncodedString() + "\">"
            } ?? ""
            let kind = entry.status.split(separator: " ").first.map { String($0).trimmingCharacters(in: .punctuationCharacters) } ?? ""
            let row = entry.page.map { "<a href=\"\(e($0))\">\(entry.row)</a>" } ?? "\(entry.row)"
            page += "<tr data-row=\"\(entry.row)\"><td>\(row)</td><td>\(picture)</td>"
                + "<td class=\"\(e(kind))\">\(e(entry.status))</td><td>\(e(entry.output ?? ""))</td></tr>\n"
        }
        return page + "</table></body></html>\n"
    }
}
