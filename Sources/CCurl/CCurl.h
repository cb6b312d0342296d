#ifndef CCURL_H
#define CCURL_H
/* libcurl: the header, plus typed wrappers for the variadic calls Swift cannot
   import (prefix ccurl_), each doing exactly what the call it names does. */
#include <curl/curl.h>

/* curl_easy_setopt, split by argument type. */
typedef size_t (*ccurl_write_fn)(char *data, size_t size, size_t count, void *context);
static inline CURLcode ccurl_setopt_long(CURL *curl, CURLoption option, long value) { return curl_easy_setopt(curl, option, value); }
static inline CURLcode ccurl_setopt_string(CURL *curl, CURLoption option, const char *value) { return curl_easy_setopt(curl, option, value); }
static inline CURLcode ccurl_setopt_pointer(CURL *curl, CURLoption option, void *value) { return curl_easy_setopt(curl, option, value); }
static inline CURLcode ccurl_setopt_write_function(CURL *curl, ccurl_write_fn fn) { return curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, fn); }

/* The last response's HTTP status (curl_easy_getinfo CURLINFO_RESPONSE_CODE), 0 if none. */
static inline long ccurl_response_code(CURL *curl) {
    long code = 0;
    return curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &code) == CURLE_OK ? code : 0;
}
#endif
