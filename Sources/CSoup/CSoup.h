#ifndef CSOUP_H
#define CSOUP_H
/* libsoup 3 for the metrics endpoint: the header, plus wrappers for the
   variadic calls and GObject macros Swift cannot import (prefix csoup_). */
#include <libsoup/soup.h>

/* soup_server_new with no properties (variadic). */
static inline SoupServer *csoup_server_new(void) { return soup_server_new(NULL, NULL); }

/* g_signal_connect (a macro) for the two callback shapes used. */
typedef void (*csoup_server_message_cb)(SoupServer *server, SoupServerMessage *msg, gpointer user_data);
typedef void (*csoup_message_cb)(SoupServerMessage *msg, gpointer user_data);
static inline gulong csoup_connect_server(SoupServer *server, const char *signal, csoup_server_message_cb cb, gpointer data) {
    return g_signal_connect(server, signal, G_CALLBACK(cb), data);
}
static inline gulong csoup_connect_message(SoupServerMessage *msg, const char *signal, csoup_message_cb cb, gpointer data) {
    return g_signal_connect(msg, signal, G_CALLBACK(cb), data);
}
#endif
