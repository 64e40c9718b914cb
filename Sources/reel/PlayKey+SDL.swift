import CSDL2

extension PlayKey {
    /// The key an SDL key event means, or nil for keys `reel play` ignores.
    init?(keycode: SDL_Keycode, shift: Bool) {
        switch keycode {
        case Int32(SDLK_q.rawValue), Int32(SDLK_ESCAPE.rawValue): self = .quit
        case Int32(SDLK_SPACE.rawValue): self = .pauseResume
        case Int32(SDLK_LEFT.rawValue): self = shift ? .back1 : .back5
        case Int32(SDLK_RIGHT.rawValue): self = shift ? .forward1 : .forward5
        case Int32(SDLK_COMMA.rawValue): self = .previousFrame
        case Int32(SDLK_PERIOD.rawValue): self = .nextFrame
        case Int32(SDLK_LEFTBRACKET.rawValue): self = .slower
        case Int32(SDLK_RIGHTBRACKET.rawValue): self = .faster
        case Int32(SDLK_HOME.rawValue): self = .home
        case Int32(SDLK_END.rawValue): self = .end
        case Int32(SDLK_l.rawValue): self = .loop
        case Int32(SDLK_t.rawValue): self = .timeLine
        default: return nil
        }
    }
}
