#ifndef CFONTCONFIG_H
#define CFONTCONFIG_H
/* fontconfig, which Pango (textoverlay) draws with: whether a font family is
   installed (docs/presets.md, overlays). */
#include <fontconfig/fontconfig.h>
#endif
