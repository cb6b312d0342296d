#ifndef COVERLAYBLEND_H
#define COVERLAYBLEND_H
/* An overlay's picture blended on I420 frames in a pad probe (docs/presets.md, overlays). */
#include <gst/gst.h>

/* A picture to blend on I420 frames: premultiplied Y, U, V with their alpha, worked out
   once; `x`, `y`, `width`, `height` place the luma on the frame, `cx`..`cheight` the chroma
   on the frame's half-size chroma planes. Each array is width x height (or cwidth x cheight),
   row after row. */
typedef struct {
    int x, y, width, height;
    const guint8 *alpha, *luma;
    int cx, cy, cwidth, cheight;
    const guint8 *calpha, *u, *v;
} OverlayBlendPicture;

/* In a buffer probe: makes the probe's buffer writable (copied only when another holds it,
   and replaced in `info`), maps it as an I420 frame of width x height and blends `picture`
   on it, over its own rectangle only. Returns 1 when it was drawn. */
int overlay_blend_probe_i420(GstPadProbeInfo *info, int width, int height, const OverlayBlendPicture *picture);

#endif
