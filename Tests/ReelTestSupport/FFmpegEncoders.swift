/// The encoders this machine's ffmpeg CLI lists (`ffmpeg -hide_banner -encoders`), read once; empty when ffmpeg
/// cannot be run, so a test that needs an encoder fails or skips rather than passing on an empty list.
public let ffmpegEncoderList: String = (try? run("ffmpeg", ["-hide_banner", "-encoders"]).stdoutText) ?? ""

/// Whether `ffmpegEncoderList` names the encoder `name` (`libx264`, `libopus`, …).
public func ffmpegHasEncoder(_ name: String) -> Bool {
    ffmpegEncoderList.contains(" \(name) ")
}
