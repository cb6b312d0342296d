#include "CGStreamerShim.h"

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

GstStructure *cshim_object_get_structure(gpointer object, const char *name) {
    GParamSpec *spec = g_object_class_find_property(G_OBJECT_GET_CLASS(object), name);
    if (spec == NULL || G_PARAM_SPEC_VALUE_TYPE(spec) != GST_TYPE_STRUCTURE) return NULL;
    GstStructure *s = NULL;
    g_object_get(object, name, &s, NULL);
    return s;
}

int cshim_object_get_int(gpointer object, const char *name) {
    GParamSpec *spec = g_object_class_find_property(G_OBJECT_GET_CLASS(object), name);
    if (spec != NULL && G_IS_PARAM_SPEC_INT(spec)) {
        gint value = 0;
        g_object_get(object, name, &value, NULL);
        return value;
    }
    if (spec != NULL && G_IS_PARAM_SPEC_UINT(spec)) {
        guint value = 0;
        g_object_get(object, name, &value, NULL);
        return value > G_MAXINT ? G_MAXINT : (int)value;
    }
    return 0;
}
