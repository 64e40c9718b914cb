#ifndef REEL_CFFMPEG_SHIM_H
#define REEL_CFFMPEG_SHIM_H

#include <libavformat/avformat.h>
#include <libavcodec/avcodec.h>
#include <libavutil/avutil.h>
#include <libavutil/opt.h>
#include <libavutil/imgutils.h>
#include <libavutil/channel_layout.h>
#include <libavutil/audio_fifo.h>
#include <libavutil/display.h>
#include <libavutil/error.h>
#include <libavutil/mathematics.h>
#include <libavutil/samplefmt.h>
#include <libavutil/pixdesc.h>
#include <libswresample/swresample.h>
#include <libswscale/swscale.h>
#include <libavfilter/avfilter.h>
#include <libavfilter/buffersrc.h>
#include <libavfilter/buffersink.h>

/* Macros that do not import into Swift, exposed as functions. */
static inline int cff_averror(int e) { return AVERROR(e); }
static inline int cff_averror_eof(void) { return AVERROR_EOF; }
static inline int64_t cff_nopts_value(void) { return AV_NOPTS_VALUE; }
static inline AVRational cff_time_base_q(void) { return AV_TIME_BASE_Q; }

#endif
