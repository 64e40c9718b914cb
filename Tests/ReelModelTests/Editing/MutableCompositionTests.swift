import ReelModel
import ReelTime
import Testing

@Suite("MutableComposition")
struct MutableCompositionTests {
    // MARK: insertTimeRange

    @Test func insertInTheMiddleOfASegmentSplitsItAndShiftsTheRest() throws {
        var edit = MutableComposition()
        let video = try edit.addTrack(.video)
        try edit.insertTimeRange(try span(0, 10), of: "cat", into: video, at: .zero)
        try edit.insertTimeRange(try span(100, 102), of: "dog", sourceTrack: 2, into: video, at: sec(4))
        #expect(describe(edit, video) == ["cat [0, 4) at [0, 4)", "dog#2 [100, 102) at [4, 6)", "cat [4, 10) at [6, 12)"])
        #expect(edit.duration == sec(12))
    }

    @Test func insertInsideAScaledSegmentCutsItsSourceAtTheMappedTime() throws {
        var edit = MutableComposition()
        let video = try edit.addTrack(.video)
        try edit.insertTimeRange(try span(0, 6), of: "cat", into: video, at: .zero)
        try edit.scaleTimeRange(try span(0, 6), toDuration: sec(3))
        #expect(describe(edit, video) == ["cat [0, 6) at [0, 3)"])
        try edit.insertTimeRange(try span(0, 1), of: "dog", into: video, at: sec(1, 3))
        #expect(describe(edit, video) == ["cat [0, 2/3) at [0, 1/3)", "dog [0, 1) at [1/3, 4/3)", "cat [2/3, 6) at [4/3, 4)"])
    }

    @Test func insertAfterTheEndFillsTheStretchWithAnEmptyEdit() throws {
        var edit = MutableComposition()
        let audio = try edit.addTrack(.audio)
        try edit.insertTimeRange(try span(1, 3), of: "music", into: audio, at: sec(5), pitch: .varispeed)
        #expect(describe(edit, audio) == ["empty at [0, 5)", "music [1, 3) at [5, 7) varispeed"])
    }

    @Test func insertingContinuingSourceMergesIntoOneSegment() throws {
        var edit = MutableComposition()
        let video = try edit.addTrack(.video)
        try edit.insertTimeRange(try span(0, 2), of: "cat", into: video, at: .zero)
        try edit.insertTimeRange(try span(2, 4), of: "cat", into: video, at: sec(2))
        try edit.insertTimeRange(try span(4, 5), of: "cat", sourceTrack: 1, into: video, at: sec(4))
        #expect(describe(edit, video) == ["cat [0, 4) at [0, 4)", "cat#1 [4, 5) at [4, 5)"])
    }

    @Test func insertTouchesOnlyItsTrack() throws {
        var edit = twoTracks()
        try edit.insertTimeRange(try span(0, 1), of: "dog", into: 1, at: sec(2))
        #expect(describe(edit, 1) == ["cat [0, 2) at [0, 2)", "dog [0, 1) at [2, 3)", "cat [2, 10) at [3, 11)"])
        #expect(describe(edit, 2) == ["music [0, 4) at [0, 4)"])
    }

    // MARK: insertEmptyTimeRange

    @Test func insertEmptyAtZeroShiftsEveryTrack() throws {
        var edit = twoTracks()
        try edit.insertEmptyTimeRange(try span(0, 2))
        #expect(describe(edit, 1) == ["empty at [0, 2)", "cat [0, 10) at [2, 12)"])
        #expect(describe(edit, 2) == ["empty at [0, 2)", "music [0, 4) at [2, 6)"])
        #expect(edit.duration == sec(12))
    }

    @Test func insertEmptyInsideSegmentsLeavesShorterTracksAlone() throws {
        var edit = twoTracks()
        try edit.insertEmptyTimeRange(try span(sec(5), sec(11, 2)))
        #expect(describe(edit, 1) == ["cat [0, 5) at [0, 5)", "empty at [5, 5.5)", "cat [5, 10) at [5.5, 10.5)"])
        #expect(describe(edit, 2) == ["music [0, 4) at [0, 4)"])
    }

    @Test func insertEmptyNextToAnEmptyEditExtendsIt() throws {
        var edit = twoTracks()
        try edit.insertEmptyTimeRange(try span(0, 2))
        try edit.insertEmptyTimeRange(try span(1, 2))
        #expect(describe(edit, 2) == ["empty at [0, 3)", "music [0, 4) at [3, 7)"])
    }

    // MARK: removeTimeRange

    @Test func removeAcrossSegmentBoundariesTrimsAndShifts() throws {
        var edit = MutableComposition()
        let video = try edit.addTrack(.video)
        let audio = try edit.addTrack(.audio)
        let short = try edit.addTrack(.audio)
        try edit.insertTimeRange(try span(0, 4), of: "a", into: video, at: .zero)
        try edit.insertTimeRange(try span(10, 16), of: "b", into: video, at: sec(4))
        try edit.insertTimeRange(try span(0, 5), of: "c", into: video, at: sec(10))
        try edit.insertTimeRange(try span(0, 5), of: "music", into: audio, at: .zero)
        try edit.insertTimeRange(try span(0, 2), of: "tick", into: short, at: .zero)
        try edit.removeTimeRange(try span(3, 12))
        #expect(describe(edit, video) == ["a [0, 3) at [0, 3)", "c [2, 5) at [3, 6)"])
        #expect(describe(edit, audio) == ["music [0, 3) at [0, 3)"])
        #expect(describe(edit, short) == ["tick [0, 2) at [0, 2)"])
        #expect(edit.duration == sec(6))
    }

    @Test func removeInsideASlowSegmentCutsAtExactSourceTimes() throws {
        var edit = MutableComposition()
        let video = try edit.addTrack(.video)
        try edit.insertTimeRange(try span(0, 1), of: "cat", into: video, at: .zero)
        try edit.scaleTimeRange(try span(0, 1), toDuration: sec(3))
        try edit.removeTimeRange(try span(sec(1), sec(3, 2)))
        #expect(describe(edit, video) == ["cat [0, 1/3) at [0, 1)", "cat [0.5, 1) at [1, 2.5)"])
    }

    @Test func removingTheMediaAfterAGapDropsTheTrailingEmptyEdit() throws {
        var edit = MutableComposition()
        let audio = try edit.addTrack(.audio)
        try edit.insertTimeRange(try span(0, 2), of: "music", into: audio, at: sec(3))
        try edit.removeTimeRange(try span(3, 5))
        #expect(describe(edit, audio) == [])
        #expect(edit.duration == .zero)
    }

    // MARK: scaleTimeRange

    @Test func scaleOfAPartlyCoveredRangeWithSpeedChangedSegments() throws {
        var edit = MutableComposition()
        let video = try edit.addTrack(.video)
        let audio = try edit.addTrack(.audio)
        try edit.insertTimeRange(try span(0, 4), of: "a", into: video, at: .zero)
        try edit.insertTimeRange(try span(0, 8), of: "b", into: video, at: sec(4))
        try edit.scaleTimeRange(try span(4, 12), toDuration: sec(4))
        #expect(describe(edit, video) == ["a [0, 4) at [0, 4)", "b [0, 8) at [4, 8)"])
        try edit.insertTimeRange(try span(0, 3), of: "music", into: audio, at: .zero)
        // [2, 6) doubles: a's second half slows to rate 1/2, b's first half (rate 2) drops to rate 1.
        try edit.scaleTimeRange(try span(2, 6), toDuration: sec(8))
        #expect(describe(edit, video) == ["a [0, 2) at [0, 2)", "a [2, 4) at [2, 6)", "b [0, 4) at [6, 10)",
                                          "b [4, 8) at [10, 12)"])
        #expect(describe(edit, audio) == ["music [0, 2) at [0, 2)", "music [2, 3) at [2, 4)"])
        let rates = try edit.track(video)?.segments.map { try $0.mapping?.rate }
        #expect(rates == [Rational(1), Rational(1, 2), Rational(1), Rational(2)])
        #expect(edit.duration == sec(12))
    }

    @Test func scaleByAThirdGivesExactRationalTargets() throws {
        var edit = MutableComposition()
        let video = try edit.addTrack(.video)
        try edit.insertTimeRange(try span(0, 1), of: "a", into: video, at: .zero)
        try edit.insertTimeRange(try span(0, 2), of: "b", into: video, at: sec(1))
        try edit.scaleTimeRange(try span(0, 3), toDuration: sec(1001, 1000))
        #expect(describe(edit, video) == ["a [0, 1) at [0, 1001/3000)", "b [0, 2) at [1001/3000, 1.001)"])
    }

    // MARK: Round trips

    @Test func insertThenRemoveGivesTheOriginal() throws {
        let original = try scaledTracks()
        var edit = original
        // Like AVMutableComposition.insertTimeRange(_:of:at:): the asset's video and audio go in at the same time.
        try edit.insertTimeRange(try span(7, 9), of: "dog", sourceTrack: 0, into: 1, at: sec(5, 3))
        try edit.insertTimeRange(try span(7, 9), of: "dog", sourceTrack: 1, into: 2, at: sec(5, 3))
        #expect(describe(edit, 2) == ["empty at [0, 0.5)", "music [0, 7/6) at [0.5, 5/3)", "dog#1 [7, 9) at [5/3, 11/3)",
                                      "music [7/6, 3) at [11/3, 5.5)"])
        try edit.removeTimeRange(try span(sec(5, 3), sec(11, 3)))
        #expect(edit == original)
        #expect(edit.composition == original.composition)
    }

    @Test func insertEmptyThenRemoveGivesTheOriginal() throws {
        let original = try scaledTracks()
        var edit = original
        try edit.insertEmptyTimeRange(try span(sec(1, 7), sec(2)))
        try edit.removeTimeRange(try span(sec(1, 7), sec(2)))
        #expect(edit == original)
    }

    @Test func scaleThenScaleBackGivesTheOriginal() throws {
        let original = try scaledTracks()
        var edit = original
        try edit.scaleTimeRange(try span(sec(1, 2), sec(5)), toDuration: sec(7, 3))
        #expect(edit != original)
        try edit.scaleTimeRange(try span(sec(1, 2), sec(17, 6)), toDuration: sec(9, 2))
        #expect(edit == original)
    }

    // MARK: From a composition

    @Test func startingFromACompositionFillsGapsAndMergesContinuingSegments() throws {
        let composition = Composition(tracks: [
            CompositionTrack(id: 3, kind: .video, segments: [
                Segment(asset: "cat", source: try span(4, 6), target: try span(5, 7)),
                Segment(asset: "cat", source: try span(2, 4), target: try span(1, 3)),
                Segment(asset: "cat", source: try span(6, 8), target: try span(7, 9)),
                Segment(emptyTarget: try span(9, 12)),
            ]),
            CompositionTrack(id: 2, kind: .audio, segments: [], name: "main"),
        ], duration: sec(20))
        let edit = try MutableComposition(composition)
        #expect(describe(edit, 3) == ["empty at [0, 1)", "cat [2, 4) at [1, 3)", "empty at [3, 5)", "cat [4, 8) at [5, 9)"])
        #expect(edit.tracks.map(\.id) == [3, 2])
        #expect(edit.track(2)?.name == "main")
        #expect(edit.composition.duration == sec(9))
    }

    @Test func overlappingSegmentsAreRefused() throws {
        let composition = Composition(tracks: [
            CompositionTrack(id: 1, kind: .video, segments: [
                Segment(asset: "cat", source: try span(0, 2), target: try span(0, 2)),
                Segment(asset: "dog", source: try span(0, 2), target: try span(1, 3)),
            ]),
        ], duration: sec(3))
        #expect(throws: EditError.overlappingSegments(track: 1)) { try MutableComposition(composition) }
    }

    // MARK: Tracks and errors

    @Test func trackIDsAreTheLowestUnusedUnlessGiven() throws {
        var edit = MutableComposition()
        #expect(try edit.addTrack(.video, id: 2) == 2)
        #expect(try edit.addTrack(.audio) == 1)
        #expect(try edit.addTrack(.audio, name: "main") == 3)
        #expect(throws: EditError.duplicateTrackID(2)) { try edit.addTrack(.video, id: 2) }
        #expect(throws: EditError.invalidTrackID(0)) { try edit.addTrack(.video, id: 0) }
        try edit.removeTrack(1)
        #expect(edit.tracks.map(\.id) == [2, 3])
        #expect(throws: EditError.unknownTrack(1)) { try edit.removeTrack(1) }
    }

    @Test func invalidEditsThrowAndChangeNothing() throws {
        let original = twoTracks()
        var edit = original
        #expect(throws: EditError.unknownTrack(9)) { try edit.insertTimeRange(try span(0, 1), of: "cat", into: 9, at: .zero) }
        #expect(throws: EditError.emptyAssetID) { try edit.insertTimeRange(try span(0, 1), of: "", into: 1, at: .zero) }
        #expect(throws: EditError.emptyRange) { try edit.insertTimeRange(try span(1, 1), of: "cat", into: 1, at: .zero) }
        #expect(throws: EditError.negativeTime(sec(-1))) { try edit.insertTimeRange(try span(0, 1), of: "cat", into: 1, at: sec(-1)) }
        #expect(throws: EditError.negativeTime(sec(-1))) { try edit.insertTimeRange(try span(-1, 1), of: "cat", into: 1, at: .zero) }
        #expect(throws: EditError.emptyRange) { try edit.removeTimeRange(try span(2, 2)) }
        #expect(throws: EditError.negativeTime(sec(-2))) { try edit.removeTimeRange(try span(-2, 2)) }
        #expect(throws: EditError.emptyRange) { try edit.insertEmptyTimeRange(try span(3, 3)) }
        #expect(throws: EditError.emptyRange) { try edit.scaleTimeRange(try span(0, 2), toDuration: .zero) }
        #expect(throws: EditError.negativeTime(sec(-1))) { try edit.scaleTimeRange(try span(0, 2), toDuration: sec(-1)) }
        #expect(edit == original)
    }

    @Test func overflowInAnyTrackThrowsAndChangesNoTrack() throws {
        var edit = twoTracks()
        try edit.insertTimeRange(try span(0, 1), of: "late", into: 2, at: sec(Int64.max - 5))
        let before = edit
        #expect(throws: EditError.arithmetic(.overflow)) { try edit.insertEmptyTimeRange(try span(0, 10)) }
        #expect(throws: EditError.arithmetic(.overflow)) {
            try edit.insertTimeRange(try span(0, 10), of: "cat", into: 2, at: .zero)
        }
        #expect(throws: EditError.arithmetic(.overflow)) {
            try edit.scaleTimeRange(try span(0, 1), toDuration: Time(value: 1, timescale: Int64.max))
        }
        #expect(edit == before)
    }
}

// MARK: Helpers

/// `value / timescale` seconds.
private func sec(_ value: Int64, _ timescale: Int64 = 1) -> Time {
    Time(value: value, timescale: timescale)
}

/// `[start, end)` in whole seconds.
private func span(_ start: Int64, _ end: Int64) throws -> TimeRange {
    try TimeRange(start: sec(start), end: sec(end))
}

/// `[start, end)`.
private func span(_ start: Time, _ end: Time) throws -> TimeRange {
    try TimeRange(start: start, end: end)
}

/// A video track 1 with cat [0, 10) at [0, 10) and an audio track 2 with music [0, 4) at [0, 4).
private func twoTracks() -> MutableComposition {
    var edit = MutableComposition()
    do {
        try edit.addTrack(.video, id: 1)
        try edit.addTrack(.audio, id: 2)
        try edit.insertTimeRange(try span(0, 10), of: "cat", into: 1, at: .zero)
        try edit.insertTimeRange(try span(0, 4), of: "music", into: 2, at: .zero)
    } catch {
        Issue.record("building the fixture failed: \(error)")
    }
    return edit
}

/// Two tracks with rate-changed segments and gaps.
private func scaledTracks() throws -> MutableComposition {
    var edit = MutableComposition()
    try edit.addTrack(.video, id: 1)
    try edit.addTrack(.audio, id: 2)
    try edit.insertTimeRange(try span(0, 4), of: "a", into: 1, at: .zero)
    try edit.insertTimeRange(try span(3, 9), of: "b", into: 1, at: sec(4))
    try edit.scaleTimeRange(try span(0, 4), toDuration: sec(3))
    try edit.insertTimeRange(try span(0, 3), of: "music", into: 2, at: sec(1, 2))
    return edit
}

/// Each segment of a track as "asset[#stream] [source) at [target)[ varispeed]" or "empty at [target)".
private func describe(_ edit: MutableComposition, _ track: Int) -> [String] {
    guard let segments = edit.track(track)?.segments else { return ["no track \(track)"] }
    return segments.map { segment in
        guard let asset = segment.asset, let source = segment.source else { return "empty at \(segment.target)" }
        let stream = segment.sourceTrack.map { "#\($0)" } ?? ""
        let pitch = segment.pitch == .varispeed ? " varispeed" : ""
        return "\(asset)\(stream) \(source) at \(segment.target)\(pitch)"
    }
}
