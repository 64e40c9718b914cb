// libass renders ASS/SSA subtitle events to alpha bitmaps (ASS_Image lists); reel blends them itself.
#include <ass/ass.h>
