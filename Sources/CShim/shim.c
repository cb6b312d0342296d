#include "CShim.h"
#include <malloc.h>

_Static_assert(sizeof(GstClockTime) == 8, "GstClockTime is 64 bits");

void cshim_object_set_double(gpointer object, const char *name, gdouble value) { g_object_set(object, name, value, NULL); }
int cshim_object_set_int(gpointer object, const char *name, gint value) {
    GParamSpec *spec = g_object_class_find_property(G_OBJECT_GET_CLASS(object), name);
    if (spec == NULL || !(G_IS_PARAM_SPEC_INT(spec) || G_IS_PARAM_SPEC_FLAGS(spec) || G_IS_PARAM_SPEC_ENUM(spec))) return 0;
    g_object_set(object, name, value, NULL);
    return 1;
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

int cshim_limit_malloc_arenas(int count) { return mallopt(M_ARENA_MAX, count); }

int cshim_malloc_trim(void) { return malloc_trim(0); }
