/*
 * The client addresses that failed an API key recently, as this worker process knows them, so that the check of
 * an address's budget of failed keys (ratelimit_check) costs a Redis round trip only for those addresses and not
 * for every authenticated request.
 *
 * Never missing an address whose failures count in Redis:
 *  - every failure is recorded in Redis in the same round trip as its count, in the sorted set
 *    confab:rl:key:watch (the address, scored with the last second its window can last), and then announced with
 *    NOTIFY confab_ratelimit ("<until> <address>") before the refusal is answered; the process that counted it
 *    watches the address at once;
 *  - each process LISTENs on a connection of its own (db/listen.h); once it listens it loads the set from Redis
 *    (the first request does, in one command), so failures from before it started or while it did not listen are
 *    known too; until then, and whenever the connection is down, every address is checked in Redis as before;
 *  - while loaded, the set is read again every second (by one request at a time), so that a failure whose NOTIFY
 *    was lost (the statement failed, or a process of an older version counted it) is known within that second;
 *  - one NOTIFY per address and second at most (the set in Redis records every failure);
 *  - past WATCH_MAX addresses at once, every address is checked until the newest window ends.
 * What is left is the notification's delay (well under a millisecond on one machine), or at worst a second, for the
 * first failure of an address, whose budget needs many more failures before it is spent.
 */
#ifndef CONFAB_RATELIMIT_WATCH_H
#define CONFAB_RATELIMIT_WATCH_H

#include <stdbool.h>

struct request;

/* Starts the LISTEN thread on conninfo; 0, or -1 (logged: every address is then checked in Redis). */
int ratelimit_watch_start(const char *conninfo);

/* Whether addr's budget must be checked in Redis (true when unsure). Loads the set from Redis when due. */
bool ratelimit_watched(struct request *req, const char *addr);

/*
 * After a failure from addr was counted: the Redis command that records it (an EVAL of 7 arguments, in the arena,
 * that adds addr and prunes ended windows; it runs when Redis is at its maxmemory too) for the caller's pipeline.
 */
const char *const *ratelimit_watch_cmd(struct request *req, const char *addr, int window);
/* After those commands were sent: watches addr here and announces it to the other processes. */
void ratelimit_watch_announce(struct request *req, const char *addr, int window);

#endif
