#ifndef CGSTREAMERSHIM_H
#define CGSTREAMERSHIM_H
/* GStreamer and GObject: wrappers for the macros and variadic calls Swift cannot import,
   and the little C that must run in a streaming thread (gapless MP3, zeroed canvases).
   Every function is prefixed cshim_ and does exactly what the macro it names does. */
#include <gst/gst.h>
#include <gst/app/gstappsrc.h>
#include <gst/app/gstappsink.h>

/* GstBuffer timing fields (GST_BUFFER_PTS and friends). */
static inline GstClockTime cshim_buffer_pts(GstBuffer *b) { return GST_BUFFER_PTS(b); }
static inline GstClockTime cshim_buffer_dts(GstBuffer *b) { return GST_BUFFER_DTS(b); }
static inline void cshim_buffer_set_pts(GstBuffer *b, GstClockTime t) { GST_BUFFER_PTS(b) = t; }
static inline void cshim_buffer_set_dts(GstBuffer *b, GstClockTime t) { GST_BUFFER_DTS(b) = t; }
static inline void cshim_buffer_set_duration(GstBuffer *b, GstClockTime t) { GST_BUFFER_DURATION(b) = t; }
static inline gboolean cshim_buffer_is_delta(GstBuffer *b) { return GST_BUFFER_FLAG_IS_SET(b, GST_BUFFER_FLAG_DELTA_UNIT); }
static inline void cshim_buffer_set_offset(GstBuffer *b, guint64 o) { GST_BUFFER_OFFSET(b) = o; }
static inline GstBuffer *cshim_buffer_copy(GstBuffer *b) { return gst_buffer_copy(b); }
static inline GstBuffer *cshim_buffer_ref(GstBuffer *b) { return gst_buffer_ref(b); }
static inline void cshim_buffer_unref(GstBuffer *b) { gst_buffer_unref(b); }
static inline void cshim_sample_unref(GstSample *s) { gst_sample_unref(s); }
static inline GstCaps *cshim_caps_ref(GstCaps *c) { return gst_caps_ref(c); }
static inline void cshim_caps_unref(GstCaps *c) { gst_caps_unref(c); }
static inline void cshim_message_unref(GstMessage *m) { gst_message_unref(m); }

/* GstMessage accessors (GST_MESSAGE_TYPE, GST_MESSAGE_SRC). */
static inline GstMessageType cshim_message_type(GstMessage *m) { return GST_MESSAGE_TYPE(m); }
static inline GstObject *cshim_message_src(GstMessage *m) { return GST_MESSAGE_SRC(m); }

/* Pad probes: the event type a probe sees (GST_PAD_PROBE_INFO_EVENT, GST_EVENT_TYPE), 0 if none. */
static inline GstEventType cshim_probe_event_type(GstPadProbeInfo *info) {
    GstEvent *event = GST_PAD_PROBE_INFO_EVENT(info);
    return event ? GST_EVENT_TYPE(event) : (GstEventType)0;
}

/* Pad probes: the PTS of the buffer a probe sees (GST_PAD_PROBE_INFO_BUFFER), GST_CLOCK_TIME_NONE if none. */
static inline GstClockTime cshim_probe_buffer_pts(GstPadProbeInfo *info) {
    GstBuffer *buffer = (info->type & GST_PAD_PROBE_TYPE_BUFFER) ? GST_PAD_PROBE_INFO_BUFFER(info) : NULL;
    return buffer ? GST_BUFFER_PTS(buffer) : GST_CLOCK_TIME_NONE;
}

/* Type checks (GST_IS_…). */
static inline gboolean cshim_is_pipeline(gpointer p) { return GST_IS_PIPELINE(p); }
static inline GstBin *cshim_as_bin(gpointer p) { return GST_BIN(p); }
static inline GstAppSink *cshim_as_appsink(gpointer p) { return GST_APP_SINK(p); }
static inline GstAppSrc *cshim_as_appsrc(gpointer p) { return GST_APP_SRC(p); }
static inline gboolean cshim_is_appsink(gpointer p) { return GST_IS_APP_SINK(p); }
static inline gboolean cshim_is_appsrc(gpointer p) { return GST_IS_APP_SRC(p); }

/* g_signal_connect is a macro over g_signal_connect_data. */
static inline gulong cshim_signal_connect(gpointer instance, const char *signal, GCallback handler,
                                          gpointer data, GClosureNotify destroy) {
    return g_signal_connect_data(instance, signal, handler, data, destroy, (GConnectFlags)0);
}

/* A GstStructure property (srtsink's "stats"), a copy the caller frees with
   gst_structure_free; NULL when the object has no such structure property. */
GstStructure *cshim_object_get_structure(gpointer object, const char *name);

/* Typed wrappers for the variadic g_object_set. */
void cshim_object_set_double(gpointer object, const char *name, gdouble value);
/* Sets an int (or flags/enum, by number) property; 0 when `object` has no such property. */
int cshim_object_set_int(gpointer object, const char *name, gint value);
/* Sets an object property (souphttpsrc's "tls-database"); 0 when `object` has no such
   object-typed property or `value` is not of its type. */
int cshim_object_set_object(gpointer object, const char *name, gpointer value);
/// 1 when `object` has an object-typed property `name` (souphttpsrc's "tls-database").
int cshim_object_has_object_property(gpointer object, const char *name);
/* The name of the factory that made `element` (avdec_h264, queue2, …), or NULL. Static string. */
const gchar *cshim_element_factory_name(GstElement *element);

/* The nick of value `index` of an enum property (videotestsrc's "pattern"), or NULL
   past the last value or when the property is not an enum. The string is static. */
const gchar *cshim_enum_property_nick(gpointer object, const char *property, guint index);

/* A tag string (title/artist/album) or NULL; caller frees with g_free. */
gchar *cshim_tag_list_get_string(const GstTagList *list, const char *tag);

/* Gapless MP3 (what ffmpeg does with the LAME/Info tag): on an MP3 decoder (avdec_mp3,
   mpg123audiodec), reads the encoder delay and padding from the stream's first frame and
   cuts them, plus the decoder's own delay (529 samples), out of the decoded audio, sample
   exact. Without a LAME tag, or when the parser already marks the padding (clipping meta),
   nothing is cut. Returns 1 when the probes were installed (mp3_gapless.c). */
int cshim_mp3_gapless(GstElement *decoder);

/* A buffer of `size` bytes, all zero, whose pages take memory only once written (a
   transparent BGRA canvas; zeroed_buffer.c); NULL when it cannot be mapped. */
GstBuffer *cshim_buffer_new_zeroed(gsize size);
/* Pushes such a zeroed buffer of `size` bytes stamped `pts` into `appsrc`, keeping no
   reference to it (so it stays writable downstream); 1 when it was taken. */
int cshim_app_src_push_zeroed(GstElement *appsrc, gsize size, GstClockTime pts);
/* An int or uint property (textoverlay's "text-x", "text-width"), 0 when `object` has none. */
int cshim_object_get_int(gpointer object, const char *name);

#endif
