import ReelModel
import ReelTime

/// Words and phrases of a word-level transcript that `reel cut` removes: filler words (`--fillers`) and any words
/// asked for (`--remove-words`). A phrase matches consecutive words, compared in lower case without punctuation
/// ("Um," matches "um"; "you know" matches "You" then "know.").
public struct WordCriteria: Sendable, Hashable {
    /// The default list for English: `--fillers` alone.
    public static let englishFillers = ["um", "uh", "er", "ah", "hmm", "you know", "i mean"]

    /// Filler words and phrases (reason `filler`).
    public var fillers: [String]
    /// Other words and phrases (reason `word`).
    public var words: [String]

    /// Creates criteria.
    public init(fillers: [String], words: [String]) {
        self.fillers = fillers
        self.words = words
    }

    /// Whether there is anything to look for.
    public var isEmpty: Bool { fillers.isEmpty && words.isEmpty }

    /// The stretches of `transcript` to remove, from each matched phrase's first word's start to its last word's
    /// end (transcript seconds, which are the input's source seconds), in transcript order.
    func candidates(in transcript: [TranscriptWord]) -> [CutCandidate] {
        let spoken = transcript.map { Self.normalized($0.text) }
        let phrases = fillers.map { (Self.tokens($0), CutReason.filler) } + words.map { (Self.tokens($0), CutReason.word) }
        var found: [CutCandidate] = []
        for index in spoken.indices {
            for (tokens, reason) in phrases where !tokens.isEmpty && index + tokens.count <= spoken.count {
                guard Array(spoken[index..<index + tokens.count]) == tokens,
                      let range = try? TimeRange(start: transcript[index].start,
                                                 end: transcript[index + tokens.count - 1].end),
                      !range.isEmpty
                else { continue }
                let text = transcript[index..<index + tokens.count].map(\.text).joined(separator: " ")
                found.append(CutCandidate(range: range, reason: reason, text: text))
                break
            }
        }
        return found
    }

    /// A phrase as the words it is made of, normalised.
    static func tokens(_ phrase: String) -> [String] {
        phrase.split(whereSeparator: { $0.isWhitespace }).map { normalized(String($0)) }.filter { !$0.isEmpty }
    }

    /// Lower case, letters, digits and inner apostrophes only.
    static func normalized(_ word: String) -> String {
        String(word.lowercased().filter { $0.isLetter || $0.isNumber || $0 == "'" || $0 == "’" })
            .trimmingCharacters(in: .init(charactersIn: "'’"))
    }
}
