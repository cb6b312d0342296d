#include "CGStreamerShim.h"
#include <gst/audio/audio.h>
#include <string.h>

typedef struct {
    gint refs;
    gboolean parsed;     /* the first frame was looked at */
    gboolean active;     /* a LAME tag gave the delay (and padding) to cut */
    guint64 skip;        /* decoded samples before the first real one */
    guint64 end;         /* decoded samples up to the last real one (0: unknown) */
} Mp3Gapless;

static void mp3_gapless_unref(gpointer data) {
    Mp3Gapless *g = data;
    if (g_atomic_int_dec_and_test(&g->refs)) g_free(g);
}

/* Decoders of libavcodec and libmpg123 output 529 samples of their own delay first. */
#define MP3_DECODER_DELAY 529

static guint32 read_be32(const guint8 *p) { return ((guint32)p[0] << 24) | ((guint32)p[1] << 16) | ((guint32)p[2] << 8) | p[3]; }

/* The first (parsed) frame: a Xing/Info frame with a LAME tag gives delay and padding. */
static void mp3_gapless_parse(Mp3Gapless *g, const guint8 *d, gsize n) {
    if (n < 4 || d[0] != 0xFF || (d[1] & 0xE0) != 0xE0) return;
    int version = (d[1] >> 3) & 3;          /* 3: MPEG-1, 2: MPEG-2, 0: MPEG-2.5 */
    int layer = (d[1] >> 1) & 3;            /* 1: layer III */
    if (layer != 1 || version == 1) return;
    gboolean mono = ((d[3] >> 6) & 3) == 3;
    gsize side = version == 3 ? (mono ? 17 : 32) : (mono ? 9 : 17);
    guint64 per_frame = version == 3 ? 1152 : 576;
    gsize o = 4 + side;
    if (n < o + 8 || (memcmp(d + o, "Xing", 4) != 0 && memcmp(d + o, "Info", 4) != 0)) return;
    guint32 flags = read_be32(d + o + 4);
    o += 8;
    guint64 frames = 0;
    if (flags & 1) { if (n < o + 4) return; frames = read_be32(d + o); o += 4; }
    if (flags & 2) o += 4;
    if (flags & 4) o += 100;
    if (flags & 8) o += 4;
    if (n < o + 24) return;
    /* The LAME tag: encoder name (9 bytes), then at 21 the 12-bit delay and padding. */
    const guint8 *lame = d + o;
    if (memcmp(lame, "LAME", 4) != 0 && memcmp(lame, "Lavc", 4) != 0 && memcmp(lame, "Lavf", 4) != 0
        && memcmp(lame, "L3.99", 5) != 0) return;
    guint32 v = ((guint32)lame[21] << 16) | ((guint32)lame[22] << 8) | lame[23];
    guint64 delay = v >> 12, padding = v & 0xFFF;
    g->skip = delay + MP3_DECODER_DELAY;
    g->end = 0;
    if (frames > 0 && frames * per_frame > delay + padding) g->end = frames * per_frame - padding + MP3_DECODER_DELAY;
    g->active = TRUE;
}

static GstPadProbeReturn mp3_gapless_in(GstPad *pad, GstPadProbeInfo *info, gpointer data) {
    (void)pad;
    Mp3Gapless *g = data;
    GstBuffer *buffer = GST_PAD_PROBE_INFO_BUFFER(info);
    if (buffer == NULL) return GST_PAD_PROBE_OK;
    if (gst_buffer_get_audio_clipping_meta(buffer) != NULL) {
        g->active = FALSE;  /* the parser marks delay and padding itself: the decoder cuts them */
        g->parsed = TRUE;
        return GST_PAD_PROBE_OK;
    }
    if (g->parsed) return GST_PAD_PROBE_OK;
    g->parsed = TRUE;
    GstMapInfo map;
    if (gst_buffer_map(buffer, &map, GST_MAP_READ)) {
        mp3_gapless_parse(g, map.data, map.size);
        gst_buffer_unmap(buffer, &map);
    }
    return GST_PAD_PROBE_OK;
}

static GstPadProbeReturn mp3_gapless_out(GstPad *pad, GstPadProbeInfo *info, gpointer data) {
    Mp3Gapless *g = data;
    GstBuffer *buffer = GST_PAD_PROBE_INFO_BUFFER(info);
    if (buffer == NULL || !g->active || !GST_BUFFER_PTS_IS_VALID(buffer)) return GST_PAD_PROBE_OK;
    GstCaps *caps = gst_pad_get_current_caps(pad);
    if (caps == NULL) return GST_PAD_PROBE_OK;
    GstAudioInfo ai;
    gboolean ok = gst_audio_info_from_caps(&ai, caps);
    gst_caps_unref(caps);
    if (!ok || ai.rate <= 0 || ai.bpf <= 0) return GST_PAD_PROBE_OK;
    guint64 first = gst_util_uint64_scale_round(GST_BUFFER_PTS(buffer), (guint64)ai.rate, GST_SECOND);
    guint64 count = gst_buffer_get_size(buffer) / (guint64)ai.bpf;
    guint64 from = MAX(first, g->skip);
    guint64 to = first + count;
    if (g->end > 0) to = MIN(to, g->end);
       if (from >= to) return GST_PAD_PROBE_DROP;
    if (from == first && to == first + count) return GST_PAD_PROBE_OK;
    buffer = gst_audio_buffer_truncate(buffer, ai.bpf, (gsize)(from - first), (gsize)(to - from));
    GST_BUFFER_PTS(buffer) = gst_util_uint64_scale_int(from, GST_SECOND, ai.rate);
    GST_BUFFER_DURATION(buffer) = gst_util_uint64_scale_int(to - from, GST_SECOND, ai.rate);
    GST_PAD_PROBE_INFO_DATA(info) = buffer;
    return GST_PAD_PROBE_OK;
}

int cshim_mp3_gapless(GstElement *decoder) {
    GstPad *in = gst_element_get_static_pad(decoder, "sink");
    GstPad *out = gst_element_get_static_pad(decoder, "src");
    int installed = 0;
    if (in != NULL && out != NULL) {
        Mp3Gapless *g = g_new0(Mp3Gapless, 1);
        g->refs = 2;
        gst_pad_add_probe(in, GST_PAD_PROBE_TYPE_BUFFER, mp3_gapless_in, g, mp3_gapless_unref);
        gst_pad_add_probe(out, GST_PAD_PROBE_TYPE_BUFFER, mp3_gapless_out, g, mp3_gapless_unref);
        installed = 1;
    }
    if (in != NULL) gst_object_unref(in);
    if (out != NULL) gst_object_unref(out);
    return installed;
}
