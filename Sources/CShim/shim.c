#include "CShim.h"
#include <malloc.h>

_Static_assert(sizeof(GstClockTime) == 8, "GstClockTime is 64 bits");

void cshim_object_set_int(gpointer object, const char *name, gint value) { g_object_set(object, name, value, NULL); }
void cshim_object_set_uint64(gpointer object, const char *name, guint64 value) { g_object_set(object, name, value, NULL); }
void cshim_object_set_double(gpointer object, const char *name, gdouble value) { g_object_set(object, name, value, NULL); }
void cshim_object_set_bool(gpointer object, const char *name, gboolean value) { g_object_set(object, name, value, NULL); }
void cshim_object_set_string(gpointer object, const char *name, const char *value) { g_object_set(object, name, value, NULL); }
void cshim_object_set_caps(gpointer object, const char *name, GstCaps *caps) { g_object_set(object, name, caps, NULL); }

gchar *cshim_object_get_string(gpointer object, const char *name) {
    gchar *value = NULL;
    g_object_get(object, name, &value, NULL);
    return value;
}

guint64 cshim_object_get_uint64(gpointer object, const char *name) {
    guint64 value = 0;
    g_object_get(object, name, &value, NULL);
    return value;
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
    curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &code);
    return code;
}

int cshim_limit_malloc_arenas(int count) { return mallopt(M_ARENA_MAX, count); }
