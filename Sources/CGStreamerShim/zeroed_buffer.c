#include "CGStreamerShim.h"
#include <sys/mman.h>
#include <unistd.h>

static void unmap_zeroed(gpointer data) {
    gsize *block = data;
    munmap(block, block[0]);
}

GstBuffer *cshim_buffer_new_zeroed(gsize size) {
    /* Fresh anonymous pages read as zero and take no memory until written: a text's canvas
       costs the rows the text is drawn on, not the whole picture (malloc would reuse and clear
       heap memory, every page of it). The first page holds the mapping's length. */
    gsize page = (gsize)sysconf(_SC_PAGESIZE), length = size + page;
    void *block = mmap(NULL, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (block == MAP_FAILED) return NULL;
    ((gsize *)block)[0] = length;
    return gst_buffer_new_wrapped_full(0, (guint8 *)block + page, size, 0, size, block, unmap_zeroed);
}

int cshim_app_src_push_zeroed(GstElement *appsrc, gsize size, GstClockTime pts) {
    GstBuffer *buffer = cshim_buffer_new_zeroed(size);
    if (buffer == NULL) return 0;
    GST_BUFFER_PTS(buffer) = pts;
    /* The appsrc takes the only reference: the element after it draws on it in place. */
    return gst_app_src_push_buffer(GST_APP_SRC(appsrc), buffer) == GST_FLOW_OK;
}
