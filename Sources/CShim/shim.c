#include "CShim.h"
#include <malloc.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/ioctl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <linux/sockios.h>

_Static_assert(sizeof(GstClockTime) == 8, "GstClockTime is 64 bits");

void cshim_object_set_double(gpointer object, const char *name, gdouble value) { g_object_set(object, name, value, NULL); }
int cshim_object_set_int(gpointer object, const char *name, gint value) {
    GParamSpec *spec = g_object_class_find_property(G_OBJECT_GET_CLASS(object), name);
    if (spec == NULL || !(G_IS_PARAM_SPEC_INT(spec) || G_IS_PARAM_SPEC_FLAGS(spec) || G_IS_PARAM_SPEC_ENUM(spec))) return 0;
    g_object_set(object, name, value, NULL);
    return 1;
}

int cshim_object_has_object_property(gpointer object, const char *name) {
    GParamSpec *spec = g_object_class_find_property(G_OBJECT_GET_CLASS(object), name);
    return spec != NULL && G_IS_PARAM_SPEC_OBJECT(spec);
}

int cshim_object_set_object(gpointer object, const char *name, gpointer value) {
    GParamSpec *spec = g_object_class_find_property(G_OBJECT_GET_CLASS(object), name);
    if (spec == NULL || !G_IS_PARAM_SPEC_OBJECT(spec) || !G_TYPE_CHECK_INSTANCE_TYPE(value, spec->value_type)) return 0;
    g_object_set(object, name, value, NULL);
    return 1;
}

const gchar *cshim_element_factory_name(GstElement *element) {
    GstElementFactory *factory = gst_element_get_factory(element);
    return factory ? gst_plugin_feature_get_name(GST_PLUGIN_FEATURE(factory)) : NULL;
}

const gchar *cshim_enum_property_nick(gpointer object, const char *property, guint index) {
    GParamSpec *spec = g_object_class_find_property(G_OBJECT_GET_CLASS(object), property);
    if (spec == NULL || !G_IS_PARAM_SPEC_ENUM(spec)) return NULL;
    GEnumClass *values = G_PARAM_SPEC_ENUM(spec)->enum_class;
    return index < values->n_values ? values->values[index].value_nick : NULL;
}

gchar *cshim_tag_list_get_string(const GstTagList *list, const char *tag) {
    gchar *value = NULL;
    if (list && gst_tag_list_get_string(list, tag, &value)) return value;
    return NULL;
}

CURLcode cshim_curl_setopt_long(CURL *curl, CURLoption option, long value) { return curl_easy_setopt(curl, option, value); }
CURLcode cshim_curl_setopt_string(CURL *curl, CURLoption option, const char *value) { return curl_easy_setopt(curl, option, value); }
CURLcode cshim_curl_setopt_pointer(CURL *curl, CURLoption option, void *value) { return curl_easy_setopt(curl, option, value); }
CURLcode cshim_curl_setopt_write_function(CURL *curl, cshim_curl_write_fn fn) { return curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, fn); }
long cshim_curl_response_code(CURL *curl) {
    long code = 0;
    return curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &code) == CURLE_OK ? code : 0;
}

int cshim_limit_malloc_arenas(int count) { return mallopt(M_ARENA_MAX, count); }

int cshim_malloc_trim(void) { return malloc_trim(0); }

/* MARK: gapless MP3 */

#include <gst/audio/audio.h>

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

GstStructure *cshim_object_get_structure(gpointer object, const char *name) {
    GParamSpec *spec = g_object_class_find_property(G_OBJECT_GET_CLASS(object), name);
    if (spec == NULL || G_PARAM_SPEC_VALUE_TYPE(spec) != GST_TYPE_STRUCTURE) return NULL;
    GstStructure *s = NULL;
    g_object_get(object, name, &s, NULL);
    return s;
}

int cshim_tcp_peer(int fd, int *family, unsigned char address[16], int *port, int *unacked) {
    int type = 0;
    socklen_t length = sizeof(type);
    if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &length) != 0 || type != SOCK_STREAM) return 0;
    struct tcp_info info;
    length = sizeof(info);
    memset(&info, 0, sizeof(info));
    if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &info, &length) != 0 || info.tcpi_state != TCP_ESTABLISHED) return 0;
    struct sockaddr_storage peer;
    length = sizeof(peer);
    if (getpeername(fd, (struct sockaddr *)&peer, &length) != 0) return 0;
    memset(address, 0, 16);
    if (peer.ss_family == AF_INET) {
        struct sockaddr_in *in = (struct sockaddr_in *)&peer;
        memcpy(address, &in->sin_addr, 4);
        *port = ntohs(in->sin_port);
    } else if (peer.ss_family == AF_INET6) {
        struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&peer;
        memcpy(address, &in6->sin6_addr, 16);
        *port = ntohs(in6->sin6_port);
    } else {
        return 0;
    }
    *family = peer.ss_family;
    int queued = 0;
    if (ioctl(fd, SIOCOUTQ, &queued) != 0) return 0;
    *unacked = queued;
    return 1;
}

/* Whether fontconfig has a font of `family` (an overlay's font, docs/presets.md, overlays):
   1 yes, 0 no, -1 fontconfig cannot be asked. libfontconfig is opened at run time (Pango,
   which textoverlay draws with, uses it): the build needs no fontconfig headers. */
#include <dlfcn.h>
int cshim_font_family_known(const char *family) {
    static void *lib;
    if (!lib) lib = dlopen("libfontconfig.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) return -1;
    void *(*pattern_create)(void) = (void *(*)(void))dlsym(lib, "FcPatternCreate");
    int (*add_string)(void *, const char *, const unsigned char *) =
        (int (*)(void *, const char *, const unsigned char *))dlsym(lib, "FcPatternAddString");
    void *(*set_create)(void) = (void *(*)(void))dlsym(lib, "FcObjectSetCreate");
    int (*set_add)(void *, const char *) = (int (*)(void *, const char *))dlsym(lib, "FcObjectSetAdd");
    void *(*font_list)(void *, void *, void *) = (void *(*)(void *, void *, void *))dlsym(lib, "FcFontList");
    void (*fontset_destroy)(void *) = (void (*)(void *))dlsym(lib, "FcFontSetDestroy");
    void (*pattern_destroy)(void *) = (void (*)(void *))dlsym(lib, "FcPatternDestroy");
    void (*set_destroy)(void *) = (void (*)(void *))dlsym(lib, "FcObjectSetDestroy");
    if (!pattern_create || !add_string || !set_create || !set_add || !font_list || !fontset_destroy
        || !pattern_destroy || !set_destroy) return -1;
    void *pattern = pattern_create();
    void *objects = set_create();
    if (!pattern || !objects) {
        if (pattern) pattern_destroy(pattern);
        if (objects) set_destroy(objects);
        return -1;
    }
    add_string(pattern, "family", (const unsigned char *)family);
    set_add(objects, "family");
    /* FcFontSet: { int nfont; int sfont; FcPattern **fonts; } */
    int *set = (int *)font_list(NULL, pattern, objects);
    int found = set ? (set[0] > 0) : -1;
    if (set) fontset_destroy(set);
    pattern_destroy(pattern);
    set_destroy(objects);
    return found;
}
