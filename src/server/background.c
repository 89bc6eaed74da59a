/* background.c: work of `imc serve` that goes on after its request was
 * answered (DELETE /infrastructures/ID?async=yes): a detached thread per
 * job, counted, so that the server stops only once every job ended: a
 * destroy cut in the middle by the server's exit would leave VMs behind. */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "server/server.h"
#include "util/log.h"
#include "util/xalloc.h"
#include "util/banned.h"

static pthread_mutex_t jobs_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t jobs_done = PTHREAD_COND_INITIALIZER;
static unsigned running;

struct job {
	void (*fn)(void *arg);
	void *arg;
};

static void *job_main(void *p)
{
	struct job *j = p;
	j->fn(j->arg);
	free(j);
	pthread_mutex_lock(&jobs_lock);
	if (--running == 0)
		pthread_cond_broadcast(&jobs_done);
	pthread_mutex_unlock(&jobs_lock);
	return NULL;
}

int srv_background(void (*fn)(void *arg), void *arg, struct diag *d)
{
	struct job *j = xcalloc(1, sizeof(*j));
	pthread_attr_t attr;
	pthread_t t;
	j->fn = fn;
	j->arg = arg;
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	pthread_mutex_lock(&jobs_lock);
	running++;
	int e = pthread_create(&t, &attr, job_main, j);
	if (e)
		running--;
	pthread_mutex_unlock(&jobs_lock);
	pthread_attr_destroy(&attr);
	if (e) {
		free(j);
		diag_error(d, IMC_EXIT_SOFTWARE, NULL, "cannot start a thread: %s", strerror(e));
		return -1;
	}
	return 0;
}

void srv_background_wait(void)
{
	pthread_mutex_lock(&jobs_lock);
	if (running)
		log_info("serve", "waiting for %u background job(s)", running);
	while (running)
		pthread_cond_wait(&jobs_done, &jobs_lock);
	pthread_mutex_unlock(&jobs_lock);
}
