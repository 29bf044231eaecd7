// libcurl, with the few options of a model download set in C: curl_easy_setopt and
// curl_easy_getinfo are variadic, which Swift cannot call.
#include <curl/curl.h>

typedef size_t (*sketchwise_curl_write_callback)(char *bytes, size_t size, size_t count, void *context);
typedef int (*sketchwise_curl_progress_callback)(void *context, curl_off_t expected, curl_off_t received, curl_off_t unused1, curl_off_t unused2);

/// Sets up one GET of `url` into `write` (each header line to `header`): redirects (at most 5, to HTTP(S) only), an overall
/// deadline, an idle limit (less than a byte a second for `idle_seconds`), a maximum size
/// (refused from the Content-Length before the body), and `progress` called at least about
/// once a second, which aborts the transfer by returning non-zero.
static inline CURLcode sketchwise_curl_configure(
    CURL *handle, const char *url, const char *user_agent, long deadline_milliseconds, long idle_seconds,
    curl_off_t maximum_bytes, sketchwise_curl_write_callback write, sketchwise_curl_write_callback header,
    sketchwise_curl_progress_callback progress, void *context, char *error_buffer) {
    CURLcode code = CURLE_OK;
#define SKETCHWISE_SET(option, value) if (code == CURLE_OK) code = curl_easy_setopt(handle, option, value)
    SKETCHWISE_SET(CURLOPT_ERRORBUFFER, error_buffer);
    SKETCHWISE_SET(CURLOPT_URL, url);
    SKETCHWISE_SET(CURLOPT_NOSIGNAL, 1L);
    SKETCHWISE_SET(CURLOPT_FOLLOWLOCATION, 1L);
    SKETCHWISE_SET(CURLOPT_MAXREDIRS, 5L);
#if LIBCURL_VERSION_NUM >= 0x075500
    SKETCHWISE_SET(CURLOPT_PROTOCOLS_STR, "http,https,file");
    SKETCHWISE_SET(CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
#else
    SKETCHWISE_SET(CURLOPT_PROTOCOLS, (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS | CURLPROTO_FILE));
    SKETCHWISE_SET(CURLOPT_REDIR_PROTOCOLS, (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS));
#endif
    SKETCHWISE_SET(CURLOPT_USERAGENT, user_agent);
    SKETCHWISE_SET(CURLOPT_TIMEOUT_MS, deadline_milliseconds);
    SKETCHWISE_SET(CURLOPT_CONNECTTIMEOUT_MS, idle_seconds * 1000 < deadline_milliseconds ? idle_seconds * 1000 : deadline_milliseconds);
    SKETCHWISE_SET(CURLOPT_LOW_SPEED_LIMIT, 1L);
    SKETCHWISE_SET(CURLOPT_LOW_SPEED_TIME, idle_seconds);
    SKETCHWISE_SET(CURLOPT_MAXFILESIZE_LARGE, maximum_bytes);
    SKETCHWISE_SET(CURLOPT_WRITEFUNCTION, write);
    SKETCHWISE_SET(CURLOPT_WRITEDATA, context);
    SKETCHWISE_SET(CURLOPT_HEADERFUNCTION, header);
    SKETCHWISE_SET(CURLOPT_HEADERDATA, context);
    SKETCHWISE_SET(CURLOPT_NOPROGRESS, 0L);
    SKETCHWISE_SET(CURLOPT_XFERINFOFUNCTION, progress);
    SKETCHWISE_SET(CURLOPT_XFERINFODATA, context);
#undef SKETCHWISE_SET
    return code;
}

/// The HTTP status of the last response (0 before one, and for file: URLs).
static inline long sketchwise_curl_status(CURL *handle) {
    long status = 0;
    curl_easy_getinfo(handle, CURLINFO_RESPONSE_CODE, &status);
    return status;
}

/// The Content-Length of the response, -1 when unknown.
static inline curl_off_t sketchwise_curl_content_length(CURL *handle) {
    curl_off_t length = -1;
    curl_easy_getinfo(handle, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &length);
    return length;
}
