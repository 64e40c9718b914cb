import ReelTime

/// Split edits (`audioLead`, `audioTail`): a clip's sound starting before or ending after its picture, taken
/// from its neighbours' sound.
struct SplitEditCompiler: CompilerPart {
    let sink: DiagnosticSink
    let context: CompileContext

    /// Split edits (J and L cuts): moves each clip's sound range by its `audioLead` and `audioTail`, and cuts the
    /// sound of the neighbour that gives way, so the storyline's audio track never overlaps itself.
    ///
    /// At one cut only one side may reach over: a lead on the incoming clip or a tail on the outgoing one, and
    /// neither where a transition joins the two (the cross-fade already overlaps their sounds). A lead may reach
    /// back into a gap (at most its length) or a clip (less than the part of it outside its incoming
    /// transition), never before the timeline's start; a tail likewise forward. The extra sound comes from the
    /// source before `in` / after `out`, at the clip's speed, and must exist. Nil after reporting a problem.
    func applySplitEdits(_ placed: [PlacedItem], frameDuration: Time?) -> [PlacedItem]? {
        var items = placed
        var valid = true
        for index in items.indices {
            guard case .clip(var clip) = items[index] else { continue }
            if let lead = clip.clip.audioLead {
                guard let start = reachBack(lead, of: clip, at: index, in: items, frameDuration: frameDuration) else {
                    valid = false
                    continue
                }
                clip.audioTarget = (try? TimeRange(start: start, end: clip.audioTarget.end)) ?? clip.audioTarget
                if index > 0, case .clip(var before) = items[index - 1],
                   let cut = try? TimeRange(start: before.audioTarget.start, end: start) {
                    before.audioTarget = cut
                    items[index - 1] = .clip(before)
                }
            }
            if let tail = clip.clip.audioTail {
                guard let end = reachForward(tail, of: clip, at: index, in: items, frameDuration: frameDuration) else {
                    valid = false
                    continue
                }
                clip.audioTarget = (try? TimeRange(start: clip.audioTarget.start, end: end)) ?? clip.audioTarget
                if index + 1 < items.count, case .clip(var after) = items[index + 1],
                   let cut = try? TimeRange(start: end, end: after.audioTarget.end) {
                    after.audioTarget = cut
                    items[index + 1] = .clip(after)
                }
            }
            items[index] = .clip(clip)
            if clip.resolved.sounds, !sourceCovers(clip, frameDuration: frameDuration) { valid = false }
        }
        return valid ? items : nil
    }

    /// Where the clip's sound starts with `lead`, after checking what comes before it; nil after an error.
    private func reachBack(_ lead: Time, of clip: PlacedClip, at index: Int, in items: [PlacedItem],
                           frameDuration: Time?) -> Time? {
        let path = clip.clip.path.key("audioLead")
        let what = "audioLead \(describeDuration(lead, frameDuration: frameDuration))"
        if clip.clip.transition != nil {
            error(path, "\(what) and a transition into the same clip: the transition already overlaps the two sounds",
                  hint: "remove the transition (a cut) or the audioLead")
            return nil
        }
        guard index > 0 else {
            error(path, "\(what) on the first item would start its sound before the timeline's start",
                  hint: "put a {\"gap\": T} at least that long before the clip, or remove the audioLead")
            return nil
        }
        let room: Time
        let neighbour: String
        switch items[index - 1] {
        case .gap(let range):
            room = range.duration
            neighbour = "the gap before it, which lasts \(describeDuration(room, frameDuration: frameDuration))"
            guard lead <= room else {
                error(path, "\(what) is longer than \(neighbour)",
                      hint: "make the audioLead at most \(describeDuration(room, frameDuration: nil))")
                return nil
            }
        case .clip(let before):
            if before.clip.audioTail != nil {
                error(path, "\(what) meets the audioTail of the clip before at the same cut: only one sound may reach over a cut",
                      hint: "keep one of clips[\(index - 1)].audioTail and this audioLead")
                return nil
            }
            room = (try? before.target.duration - before.incoming) ?? .zero
            guard lead < room else {
                let part = before.incoming.isZero ? "the clip before it, which lasts" : "the clip before it outside its incoming transition, which is"
                error(path, "\(what) is not shorter than \(part) \(describeDuration(room, frameDuration: frameDuration)): its sound would vanish",
                      hint: "make the audioLead shorter than \(describeDuration(room, frameDuration: nil))")
                return nil
            }
        }
        return try? clip.target.start - lead
    }

    /// Where the clip's sound ends with `tail`, after checking what comes after it; nil after an error. A tail
    /// on the last item is checked against the composition's end later (`tailsEndInTime`).
    private func reachForward(_ tail: Time, of clip: PlacedClip, at index: Int, in items: [PlacedItem],
                              frameDuration: Time?) -> Time? {
        let path = clip.clip.path.key("audioTail")
        let what = "audioTail \(describeDuration(tail, frameDuration: frameDuration))"
        if index + 1 < items.count {
            switch items[index + 1] {
            case .gap(let range):
                guard tail <= range.duration else {
                    error(path, "\(what) is longer than the gap after it, which lasts \(describeDuration(range.duration, frameDuration: frameDuration))",
                          hint: "make the audioTail at most \(describeDuration(range.duration, frameDuration: nil))")
                    return nil
                }
            case .clip(let after):
                if after.clip.transition != nil {
                    error(path, "\(what) and a transition out of the same clip: the transition already overlaps the two sounds",
                          hint: "remove the next clip's transition (a cut) or the audioTail")
                    return nil
                }
                // A lead on the next clip at this cut is reported there.
                if after.clip.audioLead != nil { return nil }
                let room = (try? after.target.duration - after.outgoing) ?? .zero
                guard tail < room else {
                    let part = after.outgoing.isZero ? "the clip after it, which lasts" : "the clip after it outside its outgoing transition, which is"
                    error(path, "\(what) is not shorter than \(part) \(describeDuration(room, frameDuration: frameDuration)): its sound would vanish",
                          hint: "make the audioTail shorter than \(describeDuration(room, frameDuration: nil))")
                    return nil
                }
            }
        }
        return try? clip.target.end + tail
    }

    /// Whether the source has the sound a split edit asks for: from 0 before `in`, up to its length after `out`.
    private func sourceCovers(_ clip: PlacedClip, frameDuration: Time?) -> Bool {
        guard let source = clip.audioSource else {
            error(clip.clip.path, "the clip's sound range is not representable", hint: "use simpler audioLead and audioTail times")
            return false
        }
        if clip.clip.audioLead != nil, source.start.isNegative {
            error(clip.clip.path.key("audioLead"),
                  "audioLead needs the source's sound from \(describeTime(source.start, frameDuration: nil)), before its start: in is at \(describeTime(clip.resolved.source.start, frameDuration: frameDuration))",
                  hint: "make the audioLead at most \(describeDuration((try? clip.resolved.source.start.divided(by: clip.clip.speed)) ?? .zero, frameDuration: nil)), or start the clip later in its source")
            return false
        }
        if clip.clip.audioTail != nil, let length = clip.resolved.audioDuration, !clip.resolved.lengthIsStandIn,
           source.end > length {
            let room = (try? (length - clip.resolved.source.end).divided(by: clip.clip.speed)) ?? .zero
            error(clip.clip.path.key("audioTail"),
                  "audioTail needs the source's sound up to \(describeTime(source.end, frameDuration: nil)), past its end at \(describeTime(length, frameDuration: nil))",
                  hint: room.isNegative || room.isZero ? "remove the audioTail, or end the clip earlier in its source"
                      : "make the audioTail at most \(describeDuration(room, frameDuration: nil)), or end the clip earlier in its source")
            return false
        }
        return true
    }

    /// Whether every clip's sound ends by the composition's end: a tail may sound past the last picture only while
    /// the composition goes on (output.end, or a longer audio track).
    func tailsEndInTime(_ placed: [PlacedItem], compositionEnd: Time, frameDuration: Time) -> Bool {
        var valid = true
        for case .clip(let clip) in placed where clip.audioTarget.end > compositionEnd {
            let beyond = (try? clip.audioTarget.end - compositionEnd) ?? .zero
            error(clip.clip.path.key("audioTail"),
                  "audioTail runs \(describeDuration(beyond, frameDuration: frameDuration)) past the composition's end at \(describeTime(compositionEnd, frameDuration: frameDuration))",
                  hint: "shorten the audioTail, or set output.end to at least \(describeTime(clip.audioTarget.end, frameDuration: nil)) so the sound plays over the background")
            valid = false
        }
        return valid
    }
}
