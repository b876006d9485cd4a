/*
 * The long-polls one process holds (GET /events waiting in BLPOP on their wake-up lists), so that a worker told to
 * stop answers them all at once instead of cutting them: a rolling restart of the events group loses no poll.
 */
#ifndef CONFAB_POLLS_H
#define CONFAB_POLLS_H

#include <stdbool.h>

struct worker;

/* One held poll: lives on the waiting thread's stack between polls_hold() and polls_unhold(). */
struct held_poll {
	struct held_poll *prev, *next;
	const char *wake_key; /* the list the poll blocks on; owned by the poll */
};

/* A process's register of held polls; never NULL (aborts when out of memory). */
struct event_polls *polls_new(void);
void polls_free(struct event_polls *p);
/*
 * Registers h, waiting on wake_key. Returns false, registering nothing, once polls_release() has run: the poll must
 * then answer at once. A NULL p (a process that holds no polls) accepts every poll.
 */
bool polls_hold(struct event_polls *p, struct held_poll *h, const char *wake_key);
/* Unregisters h (after its wait ended, however it ended). */
void polls_unhold(struct event_polls *p, struct held_poll *h);
/*
 * For a worker that stops: pushes "stopping" to the wake-up list of every poll w holds, so that each answers now
 * with what its queue has (usually no event: the client polls again, on another process, and the events it has not
 * acknowledged by last_event_id stay in the queue), and makes later polls of this process answer at once. Returns
 * how many polls were woken, or -1 if Redis could not be told (the polls then end at their heartbeat).
 */
int polls_release(struct worker *w);

#endif
