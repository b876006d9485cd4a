/* The long-polls a process holds, for a stop that answers them instead of cutting them; see polls.h. */
#include "events/polls.h"

#include <pthread.h>
#include <stdlib.h>

#include "core/log.h"
#include "core/uow.h"
#include "core/xalloc.h"
#include "redis/redis.h"

struct event_polls {
	pthread_mutex_t lock;
	bool stopping;
	struct held_poll *head;
	int n;
};

struct event_polls *polls_new(void)
{
	struct event_polls *p = xmalloc(sizeof(*p));
	pthread_mutex_init(&p->lock, NULL);
	p->stopping = false;
	p->head = NULL;
	p->n = 0;
	return p;
}

void polls_free(struct event_polls *p)
{
	if (p == NULL)
		return;
	pthread_mutex_destroy(&p->lock);
	free(p);
}

bool polls_hold(struct event_polls *p, struct held_poll *h, const char *wake_key)
{
	if (p == NULL)
		return true;
	pthread_mutex_lock(&p->lock);
	bool ok = !p->stopping;
	if (ok) {
		h->wake_key = wake_key;
		h->prev = NULL;
		h->next = p->head;
		if (p->head != NULL)
			p->head->prev = h;
		p->head = h;
		p->n++;
	}
	pthread_mutex_unlock(&p->lock);
	return ok;
}

void polls_unhold(struct event_polls *p, struct held_poll *h)
{
	if (p == NULL)
		return;
	pthread_mutex_lock(&p->lock);
	if (h->prev != NULL)
		h->prev->next = h->next;
	else
		p->head = h->next;
	if (h->next != NULL)
		h->next->prev = h->prev;
	p->n--;
	pthread_mutex_unlock(&p->lock);
}

/* The wake-up keys of the polls held now (copies, n of them), with the register closed to new polls. */
static char **close_register(struct event_polls *p, int *n)
{
	pthread_mutex_lock(&p->lock);
	p->stopping = true;
	char **keys = xmalloc(sizeof(*keys) * (size_t)(p->n > 0 ? p->n : 1));
	*n = 0;
	for (struct held_poll *h = p->head; h != NULL; h = h->next)
		keys[(*n)++] = xstrdup(h->wake_key);
	pthread_mutex_unlock(&p->lock);
	return keys;
}

int polls_release(struct worker *w)
{
	if (w->polls == NULL)
		return 0;
	int n;
	char **keys = close_register(w->polls, &n);
	struct uow uow;
	uow_init(&uow, w, 0);
	int woken = 0;
	/* A poll that ended meanwhile has deleted its list: the push then leaves one that expires, as wait_script's. */
	for (int i = 0; i < n && woken >= 0; i++) {
		if (REDIS_CMD(&uow, "RPUSH", keys[i], "stopping") == NULL ||
		    REDIS_CMD(&uow, "EXPIRE", keys[i], "120") == NULL)
			woken = -1;
		else
			woken++;
	}
	if (woken < 0)
		log_msg(LOG_ERROR, "could not wake the long-polls held at stop: %s",
		        uow.error_msg ? uow.error_msg : "?");
	uow_finish(&uow);
	for (int i = 0; i < n; i++)
		free(keys[i]);
	free(keys);
	return woken;
}
