/* Numbered slots handed out under a mutex; see slots.h. */
#include "core/slots.h"

#include <stdlib.h>
#include <time.h>

#include "core/xalloc.h"

void slots_init(struct slots *s, int n)
{
	pthread_mutex_init(&s->lock, NULL);
	pthread_cond_init(&s->freed, NULL);
	s->busy = xcalloc((size_t)n, sizeof(*s->busy));
	s->n = n;
}

void slots_destroy(struct slots *s)
{
	pthread_mutex_destroy(&s->lock);
	pthread_cond_destroy(&s->freed);
	free(s->busy);
}

static long long now_usec(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long long)t.tv_sec * 1000000 + t.tv_nsec / 1000;
}

/* The index of a free slot, now taken, or -1; under s->lock. */
static int take_free(struct slots *s)
{
	for (int i = 0; i < s->n; i++)
		if (!s->busy[i]) {
			s->busy[i] = true;
			return i;
		}
	return -1;
}

int slots_take(struct slots *s, long long *waited_usec)
{
	long long start = 0; /* read only when a wait begins: the common case costs no clock */
	pthread_mutex_lock(&s->lock);
	int i;
	while ((i = take_free(s)) < 0) {
		if (start == 0)
			start = now_usec();
		pthread_cond_wait(&s->freed, &s->lock);
	}
	pthread_mutex_unlock(&s->lock);
	if (waited_usec != NULL)
		*waited_usec = start ? now_usec() - start : 0;
	return i;
}

int slots_try_take(struct slots *s)
{
	pthread_mutex_lock(&s->lock);
	int i = take_free(s);
	pthread_mutex_unlock(&s->lock);
	return i;
}

void slots_give(struct slots *s, int i)
{
	pthread_mutex_lock(&s->lock);
	s->busy[i] = false;
	pthread_cond_signal(&s->freed);
	pthread_mutex_unlock(&s->lock);
}
