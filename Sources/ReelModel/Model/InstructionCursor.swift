import ReelTime

/// Finds the video composition instruction covering a composition time, walking forwards from its last answer.
///
/// Instructions tile the timeline in ascending order (SPEC §4.5), so for times that only grow, as an export's
/// frame grid does, each lookup costs one comparison; a time before the last answer starts again from the first
/// instruction. Every consumer of a video composition (export, still images, playback) shares this one walk.
public struct InstructionCursor: Sendable {
    /// The instructions walked, in timeline order.
    public let instructions: [VideoInstruction]
    /// The index of the last answer (0 before the first lookup).
    public private(set) var index = 0

    /// A cursor over `composition`'s instructions, before the first.
    public init(_ composition: VideoComposition) {
        instructions = composition.instructions
    }

    /// The index of the instruction whose range contains `time` (composition seconds), or nil when none does.
    public mutating func index(at time: Time) -> Int? {
        var found = index < instructions.count && instructions[index].timeRange.start <= time ? index : 0
        while found < instructions.count, instructions[found].timeRange.end <= time { found += 1 }
        index = found
        return found < instructions.count && instructions[found].timeRange.contains(time) ? found : nil
    }

    /// The instruction whose range contains `time` (composition seconds), or nil when none does.
    public mutating func instruction(at time: Time) -> VideoInstruction? {
        index(at: time).map { instructions[$0] }
    }
}
