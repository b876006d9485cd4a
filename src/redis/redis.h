/*
 * Redis access. The only module that includes hiredis. Like the database, a process holds one pool of
 * connections sized independently of its thread count; a unit of work takes one on its first command and gives
 * it back when its arena is freed (a cleanup registered then). Replies are copied into the request's arena as struct
 * rreply trees.
 *
 * A lost connection is reconnected and the command retried once; if Redis stays unreachable the request gets
 * ERR_UNAVAILABLE (503), as it does when Redis refuses a write past its maxmemory (an "OOM" error reply).
 */
#ifndef CONFAB_REDIS_H
#define CONFAB_REDIS_H

#include <stddef.h>

struct config;
struct uow;
struct redis_pool;

enum rreply_type { RR_NIL, RR_INT, RR_STR, RR_STATUS, RR_ARRAY, RR_ERROR };

struct rreply {
	enum rreply_type type;
	long long integer;
	const char *str; /* RR_STR, RR_STATUS, RR_ERROR: NUL-terminated */
	size_t len;
	size_t n; /* RR_ARRAY */
	struct rreply **elem;
};

/* Creates a pool from cfg (redis_socket, or redis_host and redis_port; redis_pool_size). Never NULL. */
struct redis_pool *redis_pool_new(const struct config *cfg);
void redis_pool_free(struct redis_pool *pool);

/*
 * Runs one command given as argc arguments (argvlen may be NULL for C strings). Returns the reply (owned by the
 * request) or NULL with the error recorded: an RR_ERROR reply is logged and recorded as ERR_INTERNAL, or as
 * ERR_UNAVAILABLE when it is Redis's "OOM" refusal.
 */
struct rreply *redis_cmd(struct uow *uow, int argc, const char **argv, const size_t *argvlen);
#define REDIS_NARGS(...)    ((int)(sizeof((const char *[]){__VA_ARGS__}) / sizeof(const char *)))
#define REDIS_CMD(uow, ...) redis_cmd((uow), REDIS_NARGS(__VA_ARGS__), (const char *[]){__VA_ARGS__}, NULL)
/*
 * The same as an attempt whose failure is an answer, not an error of the unit of work: NULL (or -1) with nothing
 * recorded, the failure logged. For what fails open (rate limits, publishing after COMMIT) and probes (/health).
 */
struct rreply *redis_try_cmd(struct uow *uow, int argc, const char **argv);
#define REDIS_TRY_CMD(uow, ...) redis_try_cmd((uow), REDIS_NARGS(__VA_ARGS__), (const char *[]){__VA_ARGS__})

/*
 * Sends ncmds commands in one round trip (cmds[i] has argcs[i] C-string arguments). Fills replies[i].
 * Returns 0 or -1 (error recorded).
 */
int redis_pipeline(struct uow *uow, int ncmds, const int *argcs, const char *const *const *cmds,
                   struct rreply **replies);
int redis_try_pipeline(struct uow *uow, int ncmds, const int *argcs, const char *const *const *cmds,
                       struct rreply **replies);

/*
 * BLPOP key with a timeout in seconds, on a connection of the calling thread's own (not the pool's: a waiting
 * long-poll must not hold a pooled connection). Returns the popped value (arena string); "" on timeout, and also when
 * the connection was lost during the wait (a value Redis popped just before is lost with it, so the caller must look
 * again at what it waits for rather than block again); or NULL with the error recorded when Redis cannot be reached.
 */
const char *redis_blpop(struct uow *uow, const char *key, int timeout_secs);

/* Gives the connection back to the pool early; the arena cleanup that acquiring registered does it otherwise. */
void redis_release(struct uow *uow);

#endif
