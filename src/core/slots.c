/* Numbered slots handed out under a mutex; see slots.h. */
#include "core/slots.h"

#include <stdlib.h>

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

int slots_take(struct slots *s)
{
	pthread_mutex_lock(&s->lock);
	for (;;) {
		for (int i = 0; i < s->n; i++) {
			if (!s->busy[i]) {
				s->busy[i] = true;
				pthread_mutex_unlock(&s->lock);
				return i;
			}
		}
		pthread_cond_wait(&s->freed, &s->lock);
	}
}

void slots_give(struct slots *s, int i)
{
	pthread_mutex_lock(&s->lock);
	s->busy[i] = false;
	pthread_cond_signal(&s->freed);
	pthread_mutex_unlock(&s->lock);
}
