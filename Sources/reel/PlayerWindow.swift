import CSDL2
import Foundation
import ReelCodecs
import ReelModel
import ReelRender
import ReelTime

/// `reel play`'s window: a `PlayerItem` shown through SDL2, its sound through SDL's audio device, the pictures
/// slaved to the sound.
///
/// SDL's audio thread pulls the item's sound in its callback, which is what advances the item's clock; the main
/// loop shows the item's frame for the time being heard (the clock less the device's buffer), polls keys and runs
/// the `--script`. Without an audio device the main loop reads (and discards) the sound at the system clock's pace,
/// so playback keeps time, silently.
final class PlayerWindow {
    /// What happened during playback, for `--stats`.
    struct Statistics {
        var framesShown = 0
        /// Frames of the grid (at the playing stride) that should have been on screen but never were.
        var framesDropped = 0
        /// The largest distance between the sound being heard and the interval of the frame on screen, seconds.
        var largestDrift = 0.0
        /// Silence the audio device got while playing because decoding was late, seconds.
        var soundGaps = 0.0
    }

    private let item: PlayerItem
    private let window: OpaquePointer
    private let renderer: OpaquePointer
    private let texture: OpaquePointer
    private let windowSize: (width: Int32, height: Int32)
    private let baseTitle: String
    private var audioDevice: SDL_AudioDeviceID = 0
    /// Sample frames SDL holds between the item and the speaker.
    private var audioLatency = 0
    private var frameRate: Rational
    private var measured = Statistics()
    /// What happened during playback so far.
    var statistics: Statistics {
        var all = measured
        all.soundGaps = Double(item.starvedSampleCount) / Double(item.audioSampleRate)
        return all
    }

    // Playback state the keys and the script change.
    private var playRate = 1.0
    private var loops: Bool
    private var showsTimeLine = false
    private var shown: PlayerFrame?
    /// Whether the next frame continues the previous one (false after a seek: a jump is not a drop).
    private var continuous = false
    private var dumpFolder: String?
    private var dumpCount = 0

    /// Opens the window (render size × `scale`) and the audio device; throws `.unsupported` without a display.
    init(item: PlayerItem, scale: Double, title: String, loops: Bool, dumpFolder: String?) throws {
        self.item = item
        self.loops = loops
        self.dumpFolder = dumpFolder
        baseTitle = title
        frameRate = (try? item.frameDuration.rational.inverse) ?? Rational(25)
        SDL_SetHint(SDL_HINT_RENDER_SCALE_QUALITY, "linear")
        SDL_SetHint(SDL_HINT_NO_SIGNAL_HANDLERS, "1")
        // Only a real display: SDL would otherwise fall back to drivers that draw nowhere. SDL_VIDEODRIVER in the
        // environment still overrides this.
        SDL_SetHint(SDL_HINT_VIDEODRIVER, "x11,wayland,kmsdrm")
        guard SDL_Init(UInt32(SDL_INIT_VIDEO) | UInt32(SDL_INIT_EVENTS)) == 0 else {
            throw CommandFailure(.unsupported, """
                no display to play on (\(Self.sdlError())); render to a player instead: \
                reel render PROJECT -o - | ffplay -
                """)
        }
        let size = item.presentationSize
        windowSize = (Int32(max(1, (Double(size.width) * scale).rounded())),
                      Int32(max(1, (Double(size.height) * scale).rounded())))
        guard let window = SDL_CreateWindow(
            title, Int32(reel_sdl_windowpos_centered()), Int32(reel_sdl_windowpos_centered()),
            windowSize.width, windowSize.height, 0)
        else {
            let reason = Self.sdlError()
            SDL_Quit()
            throw CommandFailure(.unsupported, "cannot open a window (\(reason)); render to a player instead: "
                                 + "reel render PROJECT -o - | ffplay -")
        }
        self.window = window
        guard let renderer = SDL_CreateRenderer(window, -1, 0) ?? SDL_CreateRenderer(window, -1, SDL_RENDERER_SOFTWARE.rawValue),
              let texture = SDL_CreateTexture(
                renderer, SDL_PIXELFORMAT_IYUV.rawValue, Int32(SDL_TEXTUREACCESS_STREAMING.rawValue),
                Int32(size.width), Int32(size.height))
        else {
            let reason = Self.sdlError()
            SDL_DestroyWindow(window)
            SDL_Quit()
            throw CommandFailure(.unsupported, "cannot draw in the window (\(reason))")
        }
        self.renderer = renderer
        self.texture = texture
        openAudio()
    }

    deinit {
        if audioDevice != 0 { SDL_CloseAudioDevice(audioDevice) }
        SDL_DestroyTexture(texture)
        SDL_DestroyRenderer(renderer)
        SDL_DestroyWindow(window)
        SDL_Quit()
    }

    /// SDL's audio thread: the item's sound straight into the device's buffer.
    private static let audioCallback: SDL_AudioCallback = { userdata, stream, length in
        guard let userdata, let stream else { return }
        let item = Unmanaged<PlayerItem>.fromOpaque(userdata).takeUnretainedValue()
        let count = Int(length) / (MemoryLayout<Float>.size * item.audioChannels)
        stream.withMemoryRebound(to: Float.self, capacity: count * item.audioChannels) {
            _ = item.readAudio(into: $0, count: count)
        }
    }

    private func openAudio() {
        guard SDL_InitSubSystem(UInt32(SDL_INIT_AUDIO)) == 0 else {
            FileHandle.standardError.write(Data("warning: no audio device (\(Self.sdlError())); playing silently\n".utf8))
            return
        }
        var wanted = SDL_AudioSpec()
        wanted.freq = Int32(item.audioSampleRate)
        wanted.format = reel_sdl_audio_f32()
        wanted.channels = UInt8(item.audioChannels)
        wanted.samples = 1024
        wanted.callback = Self.audioCallback
        wanted.userdata = Unmanaged.passUnretained(item).toOpaque()
        var obtained = SDL_AudioSpec()
        let device = SDL_OpenAudioDevice(nil, 0, &wanted, &obtained, 0)
        guard device != 0 else {
            FileHandle.standardError.write(Data("warning: cannot open the audio device (\(Self.sdlError())); playing silently\n".utf8))
            return
        }
        audioDevice = device
        audioLatency = Int(obtained.samples)
        SDL_PauseAudioDevice(device, 0)
    }

    // MARK: The loop

    /// Plays until `q`, Esc, closing the window, the script's `quit`, or an interrupt; throws the item's error.
    func run(script: PlayScript?, startPlaying: Bool, rate: Double, cancellation: CancellationFlag) throws {
        playRate = rate
        if startPlaying { item.rate = playRate }
        var commands = script?.commands[...] ?? []
        var commandDeadline: Date?
        // A script starts once the first picture is on screen.
        var commandFrame: Int64? = script == nil ? nil : item.frameIndex(at: item.currentTime)
        var commandGiveUp = Date.distantFuture
        var lastClockPull = Date()
        let silence = UnsafeMutablePointer<Float>.allocate(capacity: 48_000 * 8)
        defer { silence.deallocate() }

        while !cancellation.isCancelled {
            if item.status == .failed, let error = item.error { throw error }
            if !pollEvents() { return }

            // The script: the next command once the previous one is done.
            let now = Date()
            var commandDone = true
            if let deadline = commandDeadline, now < deadline { commandDone = false }
            if let frame = commandFrame, shown?.frameIndex != frame, now < commandGiveUp { commandDone = false }
            if commandDone, let command = commands.first {
                commands = commands.dropFirst()
                commandDeadline = nil
                commandFrame = nil
                commandGiveUp = now.addingTimeInterval(20)
                switch command {
                case .play(let duration):
                    item.rate = playRate
                    commandDeadline = duration.map { now.addingTimeInterval($0.seconds) }
                case .wait(let duration):
                    commandDeadline = now.addingTimeInterval(duration.seconds)
                case .pause:
                    item.rate = 0
                case .seek(let time):
                    seek(to: time)
                    commandFrame = item.frameIndex(at: item.currentTime)
                case .step(let count):
                    step(count)
                    commandFrame = item.frameIndex(at: item.currentTime)
                case .rate(let rate):
                    setRate(rate)
                case .loop(let on):
                    loops = on
                case .key(let key):
                    if !press(key) { return }
                    commandFrame = item.frameIndex(at: item.currentTime)
                case .quit:
                    return
                }
            }

            // Without an audio device the system clock pulls the sound.
            if audioDevice == 0 {
                let due = min(48_000 * 4, Int(Date().timeIntervalSince(lastClockPull) * Double(item.audioSampleRate)))
                if due >= 256 {
                    _ = item.readAudio(into: silence, count: due)
                    lastClockPull = Date()
                }
            }

            if item.didPlayToEnd, loops {
                item.seek(to: item.playableRange.start, toleranceBefore: .zero, toleranceAfter: .zero)
                item.rate = playRate
                continuous = false
            }

            let heard = item.currentTime(lessOutputSamples: audioDevice == 0 ? 0 : audioLatency)
            // Measured against the picture that was on screen until now, so a late loop or a late render counts.
            measureDrift(heard: heard)
            if let frame = item.copyFrame(forItemTime: heard) {
                present(frame)
            } else {
                SDL_Delay(2)
            }
        }
        throw CommandFailure.interrupted
    }

    /// Handles the events waiting; false when the user asked to quit.
    private func pollEvents() -> Bool {
        var event = SDL_Event()
        while SDL_PollEvent(&event) != 0 {
            switch event.type {
            case SDL_QUIT.rawValue:
                return false
            case SDL_KEYDOWN.rawValue:
                let shift = (UInt32(event.key.keysym.mod) & UInt32(KMOD_SHIFT.rawValue)) != 0
                if let key = PlayKey(keycode: event.key.keysym.sym, shift: shift), !press(key) { return false }
            default:
                break
            }
        }
        return true
    }

    /// Does what `key` does; false for quit.
    func press(_ key: PlayKey) -> Bool {
        switch key {
        case .quit: return false
        case .pauseResume:
            if item.rate == 0 {
                if item.didPlayToEnd { seek(to: item.playableRange.start) }
                item.rate = playRate
            } else {
                item.rate = 0
            }
        case .back5: seek(by: -5)
        case .forward5: seek(by: 5)
        case .back1: seek(by: -1)
        case .forward1: seek(by: 1)
        case .previousFrame: step(-1)
        case .nextFrame: step(1)
        case .slower: setRate(Self.rates.last { $0 < playRate } ?? playRate)
        case .faster: setRate(Self.rates.first { $0 > playRate } ?? playRate)
        case .home: seek(to: item.playableRange.start)
        case .end: seek(to: (try? item.playableRange.end - item.frameDuration) ?? item.playableRange.start)
        case .loop: loops.toggle(); updateTitle()
        case .timeLine:
            showsTimeLine.toggle()
            updateTitle()
            if let shown { draw(shown) }
        }
        return true
    }

    /// The rates `[` and `]` move between.
    private static let rates = [0.25, 0.5, 1, 2, 4]

    private func setRate(_ rate: Double) {
        playRate = rate
        if item.rate != 0 { item.rate = rate }
        updateTitle()
    }

    private func seek(to time: Time) {
        item.seek(to: time, toleranceBefore: .zero, toleranceAfter: .zero)
        continuous = false
    }

    private func seek(by seconds: Int64) {
        let target = (try? item.currentTime + Time(seconds: seconds)) ?? item.currentTime
        seek(to: max(target, .zero))
    }

    private func step(_ count: Int) {
        item.step(byCount: count)
        continuous = false
    }

    // MARK: Drawing

    private func present(_ frame: PlayerFrame) {
        draw(frame)
        if continuous, item.rate > 0, let previous = shown {
            let stride = Int64(max(1, item.rate >= 2 ? item.rate.rounded(.down) : 1))
            let skipped = (frame.frameIndex - previous.frameIndex) / stride - 1
            if skipped > 0 { measured.framesDropped += Int(skipped) }
        }
        shown = frame
        continuous = true
        measured.framesShown += 1
        if showsTimeLine { updateTitle() }
    }

    /// Shows `frame`'s picture, with the `t` line over its bottom-left corner when it is on.
    private func draw(_ frame: PlayerFrame) {
        let picture = frame.picture
        SDL_UpdateYUVTexture(texture, nil, picture.plane(0), Int32(picture.stride(0)), picture.plane(1),
                             Int32(picture.stride(1)), picture.plane(2), Int32(picture.stride(2)))
        SDL_RenderClear(renderer)
        SDL_RenderCopy(renderer, texture, nil, nil)
        if showsTimeLine { drawTimeLine(for: frame) }
        if dumpFolder != nil { dump(frame) }
        SDL_RenderPresent(renderer)
    }

    /// The `t` line on screen: time, timecode and frame, drawn by the title path at 16 px in the window's pixels.
    private func drawTimeLine(for frame: PlayerFrame) {
        let timecode = (try? Timecode(frameNumber: frame.frameIndex, frameRate: frameRate, dropFrame: false))
            .map(\.description) ?? "-"
        let text = String(format: "%.3f s", frame.itemTime.seconds) + "  \(timecode)  frame \(frame.frameIndex)"
        guard let line = try? TextLine(text, size: 16),
              let overlay = SDL_CreateTexture(renderer, SDL_PIXELFORMAT_ABGR8888.rawValue,
                                              Int32(SDL_TEXTUREACCESS_STATIC.rawValue), Int32(line.width), Int32(line.height))
        else { return }
        defer { SDL_DestroyTexture(overlay) }
        line.pixels.withUnsafeBytes { _ = SDL_UpdateTexture(overlay, nil, $0.baseAddress, Int32(line.width * 4)) }
        SDL_SetTextureBlendMode(overlay, SDL_BLENDMODE_BLEND)
        var target = SDL_Rect(x: 4, y: windowSize.height - Int32(line.height) - 4, w: Int32(line.width), h: Int32(line.height))
        SDL_RenderCopy(renderer, overlay, nil, &target)
    }

    /// How far the picture on screen is from the sound being heard: 0 while the heard time lies within the frame's
    /// interval on the grid, else the distance to it. Only measured while playing, and not between a seek and its
    /// first picture.
    private func measureDrift(heard: Time) {
        // Right after a seek the old picture is still up until the new one is ready: that wait is not drift.
        guard let shown, continuous, item.rate > 0, !item.didPlayToEnd else { return }
        let stride = max(1, item.rate >= 2 ? item.rate.rounded(.down) : 1)
        let start = shown.itemTime.seconds, end = start + item.frameDuration.seconds * stride
        let t = heard.seconds
        let drift = t < start ? start - t : t > end ? t - end : 0
        measured.largestDrift = max(measured.largestDrift, drift)
    }

    /// The `t` line in the window's title bar too (and the rate and loop state, which the picture's line leaves out).
    private func updateTitle() {
        var parts = [baseTitle]
        if showsTimeLine, let shown {
            let timecode = (try? Timecode(frameNumber: shown.frameIndex, frameRate: frameRate, dropFrame: false))
                .map(\.description) ?? "-"
            parts.append(String(format: "%.3f s", shown.itemTime.seconds))
            parts.append(timecode)
            parts.append("frame \(shown.frameIndex)")
            parts.append("×\(playRate)")
            if loops { parts.append("loop") }
        }
        SDL_SetWindowTitle(window, parts.joined(separator: " · "))
    }

    /// `--dump-frames`: the window's pixels as a grey PGM named by the frame index shown.
    private func dump(_ frame: PlayerFrame) {
        guard let dumpFolder else { return }
        let width = Int(windowSize.width), height = Int(windowSize.height)
        var rgb = [UInt8](repeating: 0, count: width * height * 3)
        let result = rgb.withUnsafeMutableBytes {
            SDL_RenderReadPixels(renderer, nil, SDL_PIXELFORMAT_RGB24.rawValue, $0.baseAddress, Int32(width * 3))
        }
        guard result == 0 else { return }
        var pgm = Array("P5\n\(width) \(height)\n255\n".utf8)
        pgm.reserveCapacity(pgm.count + width * height)
        for i in 0..<(width * height) {
            let luma = ColorMatrix.bt601.luma(red: Double(rgb[3 * i]), green: Double(rgb[3 * i + 1]), blue: Double(rgb[3 * i + 2]))
            pgm.append(UInt8(min(255, luma.rounded())))
        }
        dumpCount += 1
        let name = String(format: "%06d-frame%06lld.pgm", dumpCount, frame.frameIndex)
        _ = FileManager.default.createFile(atPath: dumpFolder + "/" + name, contents: Data(pgm))
    }

    private static func sdlError() -> String {
        SDL_GetError().map { String(cString: $0) } ?? "unknown SDL error"
    }
}
