// Pango lays out text (fontconfig finds the fonts, HarfBuzz shapes, FriBidi orders), Cairo rasterises it.
#include <pango/pangocairo.h>
#include <pango/pangofc-fontmap.h>
#include <fontconfig/fontconfig.h>
