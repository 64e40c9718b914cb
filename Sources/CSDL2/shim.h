// SDL2 for `reel play`. SDL's macros that Swift cannot import are wrapped in functions here.
#ifndef REEL_CSDL2_SHIM_H
#define REEL_CSDL2_SHIM_H

#define SDL_MAIN_HANDLED 1
#include <SDL2/SDL.h>

static inline int reel_sdl_windowpos_centered(void) { return SDL_WINDOWPOS_CENTERED; }
static inline SDL_AudioFormat reel_sdl_audio_f32(void) { return AUDIO_F32SYS; }
static inline Uint32 reel_sdl_init_flags(void) { return SDL_INIT_VIDEO | SDL_INIT_AUDIO | SDL_INIT_EVENTS; }

#endif
