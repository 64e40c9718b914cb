// librsvg parses SVG documents and draws them with Cairo (image assets written as .svg, docs/format.md).
#include <librsvg/rsvg.h>
