#include "COverlayBlend.h"
#include <gst/video/video.h>

/* Premultiplied "over": p + d * (255 - a) / 255, rounded (p <= a, so it never passes 255). */
static inline guint8 over(guint8 p, guint8 a, guint8 d) {
    unsigned t = (unsigned)d * (255u - a) + 128u;
    unsigned v = p + ((t + (t >> 8)) >> 8);
    return (guint8)(v > 255u ? 255u : v);
}

/* One plane: the w x h picture (alpha and premultiplied values) at x, y, clipped to the plane. */
static void blend_plane(guint8 *plane, int stride, int pw, int ph, int x, int y, int w, int h,
                        const guint8 *alpha, const guint8 *value) {
    for (int row = 0; row < h; row++) {
        int py = y + row;
        if (py < 0 || py >= ph) continue;
        guint8 *dst = plane + (gsize)py * stride;
        const guint8 *a = alpha + (gsize)row * w, *p = value + (gsize)row * w;
        for (int col = 0; col < w; col++) {
            int px = x + col;
            if (a[col] == 0 || px < 0 || px >= pw) continue;
            dst[px] = over(p[col], a[col], dst[px]);
        }
    }
}

int overlay_blend_probe_i420(GstPadProbeInfo *info, int width, int height, const OverlayBlendPicture *picture) {
    if (!(info->type & GST_PAD_PROBE_TYPE_BUFFER) || GST_PAD_PROBE_INFO_BUFFER(info) == NULL) return 0;
    /* The one copy, only when another holds the picture (a frame tap, the capture's last frame). */
    GstBuffer *buffer = gst_buffer_make_writable(GST_PAD_PROBE_INFO_BUFFER(info));
    GST_PAD_PROBE_INFO_DATA(info) = buffer;
    GstVideoInfo vinfo;
    if (!gst_video_info_set_format(&vinfo, GST_VIDEO_FORMAT_I420, (guint)width, (guint)height)) return 0;
    GstVideoFrame frame;
    if (!gst_video_frame_map(&frame, &vinfo, buffer, GST_MAP_READWRITE)) return 0;
    const OverlayBlendPicture *p = picture;
    blend_plane(GST_VIDEO_FRAME_PLANE_DATA(&frame, 0), GST_VIDEO_FRAME_PLANE_STRIDE(&frame, 0), width, height,
                p->x, p->y, p->width, p->height, p->alpha, p->luma);
    int cw = (width + 1) / 2, ch = (height + 1) / 2;
    blend_plane(GST_VIDEO_FRAME_PLANE_DATA(&frame, 1), GST_VIDEO_FRAME_PLANE_STRIDE(&frame, 1), cw, ch,
                p->cx, p->cy, p->cwidth, p->cheight, p->calpha, p->u);
    blend_plane(GST_VIDEO_FRAME_PLANE_DATA(&frame, 2), GST_VIDEO_FRAME_PLANE_STRIDE(&frame, 2), cw, ch,
                p->cx, p->cy, p->cwidth, p->cheight, p->calpha, p->v);
    gst_video_frame_unmap(&frame);
    return 1;
}
