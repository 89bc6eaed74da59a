/* cloud-http.c: the pieces of a remote API transport that the ec2 and
 * openstack backends share (cloud-http.h): one curl_global_init per
 * process, the classification of transport failures, the backoff of their
 * retry policies and the scalable sleeping that lets tests run without
 * waiting. */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "cloud/cloud-http.h"
#include "util/banned.h"

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;

static void curl_init_once(void)
{
	curl_global_init(CURL_GLOBAL_DEFAULT);
}

void cloud_curl_init(void)
{
	pthread_once(&curl_once, curl_init_once);
}

void cloud_curl_request(CURL *h, const char *url)
{
	curl_easy_reset(h);
	curl_easy_setopt(h, CURLOPT_URL, url);
#if LIBCURL_VERSION_NUM >= 0x075500
	curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
#else
	curl_easy_setopt(h, CURLOPT_PROTOCOLS, (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS));
#endif
	curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT, 15L);
	curl_easy_setopt(h, CURLOPT_TIMEOUT, 120L);
	curl_easy_setopt(h, CURLOPT_USERAGENT, "imc/" PACKAGE_VERSION);
}

bool cloud_curl_retryable(CURLcode rc)
{
	switch (rc) {
	case CURLE_COULDNT_RESOLVE_HOST:
	case CURLE_COULDNT_CONNECT:
	case CURLE_OPERATION_TIMEDOUT:
	case CURLE_SEND_ERROR:
	case CURLE_RECV_ERROR:
	case CURLE_GOT_NOTHING:
	case CURLE_PARTIAL_FILE:
	case CURLE_SSL_CONNECT_ERROR:
	case CURLE_HTTP2:
	case CURLE_HTTP2_STREAM:
		return true;
	default:
		return false;
	}
}

double cloud_time_scale(const char *env)
{
	const char *ts = getenv(env);
	if (ts && *ts) {
		char *end;
		double v = strtod(ts, &end);
		if (*end == '\0' && v >= 0 && v <= 100)
			return v;
	}
	return 1.0;
}

unsigned cloud_seed(const void *p)
{
	return (unsigned)time(NULL) ^ ((unsigned)getpid() << 16) ^ (unsigned)(size_t)p;
}

double cloud_backoff(unsigned *seed, int attempt)
{
	double d = (double)rand_r(seed) / ((double)RAND_MAX + 1.0);
	for (int i = 1; i < attempt; i++)
		d *= 2;
	return d > 20 ? 20 : d;
}

void cloud_sleep(double seconds)
{
	if (seconds <= 0)
		return;
	struct timespec ts = { (time_t)seconds, (long)((seconds - (double)(time_t)seconds) * 1e9) };
	while (nanosleep(&ts, &ts) == -1 && errno == EINTR)
		;
}
