import ReelModel
import ReelTime

extension ImportedPiece {
    /// The piece cut down to the record range [start, end) (which must overlap it): the source start moves with a
    /// trimmed head (scaled by the speed; a freeze keeps its frame), and a trimmed head loses its transition.
    func trimmed(from start: Time, to end: Time) -> ImportedPiece {
        var piece = self
        let newStart = max(start, recordStart)
        let newEnd = min(end, recordEnd)
        if newStart > recordStart, let head = try? newStart - recordStart {
            if !freeze, let advance = try? head.multiplied(by: speed), let moved = try? sourceStart + advance {
                piece.sourceStart = moved
            }
            piece.transitionIn = nil
        }
        piece.recordStart = newStart
        piece.recordDuration = (try? newEnd - newStart) ?? .zero
        return piece
    }
}

extension ImportedTrack {
    /// Puts `piece` on the track over whatever lies in its record range (a record edit): earlier pieces are cut
    /// back, split, or removed. A transition whose incoming piece loses its head is dropped with a warning.
    public mutating func overwrite(with piece: ImportedPiece, frameDuration: Time, diagnostics: inout [Diagnostic]) {
        var result: [ImportedPiece] = []
        for existing in pieces {
            if existing.recordEnd <= piece.recordStart || existing.recordStart >= piece.recordEnd {
                result.append(existing)
                continue
            }
            if existing.recordStart < piece.recordStart {
                result.append(existing.trimmed(from: existing.recordStart, to: piece.recordStart))
            }
            if existing.recordEnd > piece.recordEnd {
                let tail = existing.trimmed(from: piece.recordEnd, to: existing.recordEnd)
                if existing.transitionIn != nil, existing.recordStart >= piece.recordStart {
                    diagnostics.append(existing.origin.diagnostic(
                        .warning, "its transition is dropped: a later event covers the cut it sat on"))
                }
                result.append(tail)
            }
        }
        result.append(piece)
        pieces = result.filter { $0.recordDuration > .zero || $0.transitionIn != nil }
            .sorted { $0.recordStart < $1.recordStart }
    }

    /// Whether every transition on the track joins two of its own pieces that meet at its cut.
    var transitionsJoinItsOwnPieces: Bool {
        pieces.indices.allSatisfy { index in
            let piece = pieces[index]
            guard piece.transitionIn != nil else { return true }
            guard piece.recordDuration > .zero, index > 0 else { return false }
            let before = pieces[index - 1]
            return before.recordDuration > .zero && before.recordEnd == piece.recordStart
        }
    }

    /// The pieces inside [start, end), trimmed to it and moved so that `start` becomes `offset`.
    func pieces(in start: Time, _ end: Time, movedTo offset: Time) -> [ImportedPiece] {
        pieces.compactMap { piece -> ImportedPiece? in
            guard piece.recordStart < end, piece.recordEnd > start || (piece.recordDuration.isZero && piece.recordStart >= start)
            else { return nil }
            var trimmed = piece.recordDuration.isZero ? piece : piece.trimmed(from: start, to: end)
            trimmed.recordStart = (try? trimmed.recordStart - start + offset) ?? trimmed.recordStart
            return trimmed
        }
    }
}

/// Flattens video tracks, bottom first, into one: at every instant the topmost piece shows (OpenTimelineIO's
/// `flatten_stack`). Exact for opaque pictures that fill the frame; a transition on an upper track keeps its cut
/// only when nothing above covers it.
public func flattened(_ tracks: [ImportedTrack], frameDuration: Time, diagnostics: inout [Diagnostic]) -> ImportedTrack {
    var result = ImportedTrack(kind: .video, name: tracks.map(\.name).joined(separator: "+"), pieces: [])
    for track in tracks {
        for piece in track.pieces {
            result.overwrite(with: piece, frameDuration: frameDuration, diagnostics: &diagnostics)
        }
    }
    return result
}
