#ifndef CGDKPIXBUF_H
#define CGDKPIXBUF_H
#include <gdk-pixbuf/gdk-pixbuf.h>
#endif
