/*
 * What events.c (publishing) and queues.c (the queues themselves) share; private to src/events. A queue's keys are
 * "confab:q:{<queue id>}:<what>" (meta, events, applied; wake:<poll>): each queue in a hash slot of its own.
 */
#ifndef CONFAB_EVENTS_QUEUES_H
#define CONFAB_EVENTS_QUEUES_H

#include <json-c/json.h>
#include <stdbool.h>

struct uow;

/* The key of a queue's part `what` (an arena string). */
const char *queue_key(struct uow *uow, const char *qid, const char *what);
/* Whether a queue's client_capabilities (caps, NULL: none) has capability name set. */
bool queue_capability(json_object *caps, const char *name);
/* Deletes the queues (all their keys, and their entries in the user and organization sets). 0, or -1. */
int queues_delete(struct uow *uow, const char **queues, int nq);

#endif
