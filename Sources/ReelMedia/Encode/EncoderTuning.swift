/// How hard an encoder works and how much quality it keeps: the output presets of SPEC §2.1, named
/// independently of any encoder.
public enum EncodingQuality: String, Sendable, CaseIterable {
    /// Near-transparent quality, slow.
    case high
    /// The default balance.
    case medium
    /// Smaller and faster.
    case low
    /// Fastest, for previews.
    case draft
}

/// The settings each encoder understands for an `EncodingQuality`, and the translation of a speed name written
/// for libx264 (`encoderPreset`) to encoders that have none of those names.
///
/// | quality | libx264, libx265 | libvpx-vp9 | libaom-av1 | libsvtav1 | prores_ks |
/// |---|---|---|---|---|---|
/// | high | crf 18, preset slow | crf 24, deadline good, cpu-used 1 | crf 24, cpu-used 4 | crf 24, preset 6 | profile hq |
/// | medium | crf 23, preset medium | crf 31, deadline good, cpu-used 2 | crf 30, cpu-used 6 | crf 30, preset 8 | profile standard |
/// | low | crf 28, preset veryfast | crf 36, deadline good, cpu-used 4 | crf 36, cpu-used 7 | crf 36, preset 10 | profile lt |
/// | draft | crf 32, preset ultrafast | crf 40, deadline realtime, cpu-used 8 | crf 42, cpu-used 8 | crf 42, preset 12 | profile proxy |
///
/// VP9 and AV1 run in constant-quality mode (no bitrate) unless a bitrate is given; ProRes has no rate factor.
struct EncoderTuning {
    /// The rate factor, for encoders that take one.
    let crf: Int?
    /// Encoder-private options, set in this order.
    let options: [(key: String, value: String)]

    /// The tuning of `encoder` (a libavcodec encoder name) for `quality`, with an explicit `speed` (the project's
    /// `encoderPreset`) replacing the quality's speed.
    init(encoder: String, quality: EncodingQuality, speed: String?) {
        let row = speed.flatMap(Self.quality(ofX264Preset:)) ?? quality
        switch encoder {
        case "libvpx-vp9":
            crf = [.high: 24, .medium: 31, .low: 36, .draft: 40][quality]
            let cpuUsed = speed.flatMap { Int($0) }.map(String.init) ?? [.high: "1", .medium: "2", .low: "4", .draft: "8"][row]!
            options = [("deadline", row == .draft ? "realtime" : "good"), ("cpu-used", cpuUsed), ("row-mt", "1")]
        case "libaom-av1":
            crf = [.high: 24, .medium: 30, .low: 36, .draft: 42][quality]
            let cpuUsed = speed.flatMap { Int($0) }.map(String.init) ?? [.high: "4", .medium: "6", .low: "7", .draft: "8"][row]!
            options = [("cpu-used", cpuUsed), ("row-mt", "1")]
        case "libsvtav1":
            crf = [.high: 24, .medium: 30, .low: 36, .draft: 42][quality]
            let preset = speed.flatMap { Int($0) }.map(String.init) ?? [.high: "6", .medium: "8", .low: "10", .draft: "12"][row]!
            options = [("preset", preset)]
        case "prores_ks":
            crf = nil
            options = [("profile", speed ?? [.high: "hq", .medium: "standard", .low: "lt", .draft: "proxy"][quality]!)]
        default:
            crf = [.high: 18, .medium: 23, .low: 28, .draft: 32][quality]
            options = [("preset", speed ?? [.high: "slow", .medium: "medium", .low: "veryfast", .draft: "ultrafast"][quality]!)]
        }
    }

    /// The quality row whose speed a libx264 preset name stands for, or nil for any other name.
    static func quality(ofX264Preset name: String) -> EncodingQuality? {
        switch name {
        case "placebo", "veryslow", "slower", "slow": .high
        case "medium", "fast": .medium
        case "faster", "veryfast": .low
        case "superfast", "ultrafast": .draft
        default: nil
        }
    }
}
