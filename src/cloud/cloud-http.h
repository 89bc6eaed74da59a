/* cloud-http.h: what the backends that speak a remote HTTP API (ec2,
 * openstack) share: libcurl's one global initialisation, which transport
 * failures are worth another attempt, the randomised exponential backoff,
 * and delays a test can scale to nothing. */
#ifndef IMC_CLOUD_HTTP_H
#define IMC_CLOUD_HTTP_H

#include <stdbool.h>

#include <curl/curl.h>

/* curl_global_init, once per process (thread-safe). */
void cloud_curl_init(void);
/* Resets handle h for one request to url: http and https only, no
 * signals, 15 s to connect, 120 s in all, imc's User-Agent. */
void cloud_curl_request(CURL *h, const char *url);
/* Whether a transfer that failed with rc may succeed when sent again
 * (resolution, connection, timeout, send/receive errors). */
bool cloud_curl_retryable(CURLcode rc);
/* The factor in environment variable env (0 to 100) that multiplies every
 * delay of a backend; 1 when unset or invalid. Tests set 0. */
double cloud_time_scale(const char *env);
/* A seed for cloud_backoff, different per process and per p. */
unsigned cloud_seed(const void *p);
/* Delay before attempt + 1 (attempt is 1-based): rand * 2^(attempt-1)
 * seconds, at most 20 (botocore's "rand" base, growth factor 2). */
double cloud_backoff(unsigned *seed, int attempt);
/* Sleeps seconds (already scaled); nothing for seconds <= 0. */
void cloud_sleep(double seconds);

#endif
