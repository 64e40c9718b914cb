/// The candidate closest to `word` for a "did you mean" hint, or nil when none is close.
///
/// Distance is Damerau–Levenshtein (optimal string alignment: insertions, deletions,
/// substitutions and transpositions of adjacent characters each cost 1), compared
/// case-insensitively. A candidate is accepted when its distance is at most
/// max(1, word.count / 3); the first of equally close candidates wins.
public func suggestion(for word: String, among candidates: [String]) -> String? {
    let target = Array(word.lowercased())
    let limit = max(1, word.count / 3)
    var best: (candidate: String, distance: Int)?
    for candidate in candidates {
        let distance = editDistance(target, Array(candidate.lowercased()))
        if distance <= limit, distance < (best?.distance ?? Int.max) {
            best = (candidate, distance)
        }
    }
    return best?.candidate
}

/// Optimal string alignment distance between two character sequences.
func editDistance(_ a: [Character], _ b: [Character]) -> Int {
    if a.isEmpty { return b.count }
    if b.isEmpty { return a.count }
    let width = b.count + 1
    var beforePrevious = [Int](repeating: 0, count: width)
    var previous = Array(0...b.count)
    var current = [Int](repeating: 0, count: width)
    for i in 1...a.count {
        current[0] = i
        for j in 1...b.count {
            let cost = a[i - 1] == b[j - 1] ? 0 : 1
            var value = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
            if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                value = min(value, beforePrevious[j - 2] + 1)
            }
            current[j] = value
        }
        (beforePrevious, previous, current) = (previous, current, beforePrevious)
    }
    return previous[b.count]
}
