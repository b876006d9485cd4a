/*
 * PostgreSQL access. The only module that includes libpq. A process holds one pool of connections sized
 * independently of its thread count; a unit of work (core/uow.h) takes a connection on its first query and gives
 * it back when its arena is freed (a cleanup registered then). Statements are prepared once per connection and always
 * parameterized.
 *
 * Failures are recorded on the request: a lost or refused connection as ERR_UNAVAILABLE (503), any other SQL
 * error as ERR_INTERNAL (500, logged with its SQLSTATE). A broken connection is reset and, outside a
 * transaction, the statement is retried once, so a PostgreSQL restart costs no failed request once the
 * server is back.
 */
#ifndef CONFAB_DB_H
#define CONFAB_DB_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

struct uow;
struct db_pool;
struct db_res;

/* A statement; declare as `static struct db_stmt st = DB_STMT("SELECT ...");`. */
struct db_stmt {
	const char *sql;
	atomic_int id; /* assigned on first use */
};
#define DB_STMT(text)                                                                                                  \
	{                                                                                                              \
		.sql = (text)                                                                                          \
	}

/* Creates a pool of size connections to conninfo; connects lazily. Never NULL. */
struct db_pool *db_pool_new(const char *conninfo, int size);
void db_pool_free(struct db_pool *pool);

/*
 * Executes st with n text parameters (NULL entries are SQL NULL). Returns the result (owned by the request)
 * or NULL with the error recorded.
 */
struct db_res *db_exec(struct uow *uow, struct db_stmt *st, const char *const *params, int n);
#define DB_NARGS(...)         ((int)(sizeof((const char *[]){__VA_ARGS__}) / sizeof(const char *)))
#define DB_EXEC(uow, st, ...) db_exec((uow), (st), (const char *[]){__VA_ARGS__}, DB_NARGS(__VA_ARGS__))
/*
 * db_exec() for work whose failure the unit of work does not answer for (deleting published outbox rows after
 * COMMIT): NULL with nothing recorded, the failure logged.
 */
struct db_res *db_try_exec(struct uow *uow, struct db_stmt *st, const char *const *params, int n);
#define DB_TRY_EXEC(uow, st, ...) db_try_exec((uow), (st), (const char *[]){__VA_ARGS__}, DB_NARGS(__VA_ARGS__))
/* Runs a script of one or more statements without parameters (migrations, administration). */
int db_exec_script(struct uow *uow, const char *sql);

/* Formats an integer parameter (an arena string). */
const char *db_arg_int(struct uow *uow, int64_t v);
/* Formats n ids as a PostgreSQL array literal, "{1,2,3}", for a bigint[] parameter (an arena string). */
const char *db_arg_ids(struct uow *uow, const int64_t *ids, int n);

int db_rows(const struct db_res *res);
/* The value at row, col as text; "" for NULL. */
const char *db_val(const struct db_res *res, int row, int col);
bool db_null(const struct db_res *res, int row, int col);
int64_t db_int(const struct db_res *res, int row, int col);
bool db_bool(const struct db_res *res, int row, int col);

/* Starts the request's transaction (one per request). Returns 0 or -1. */
int db_begin(struct uow *uow);
/*
 * Starts the request's transaction at REPEATABLE READ: every statement of it sees the snapshot taken by its first
 * statement. Must be the request's first transaction (an open one is an internal error). Returns 0 or -1.
 */
int db_begin_repeatable_read(struct uow *uow);
/* Commits it. Returns 0 or -1 (error recorded). */
int db_commit(struct uow *uow);
/* Rolls back an open transaction and returns the connection to the pool; also run by the arena cleanup that
 * acquiring registered, so calling it early (a long-poll about to wait) is optional. */
void db_release(struct uow *uow);

/* A probe: returns 0 if PostgreSQL answers a trivial query, else -1 with nothing recorded (the failure is logged). */
int db_ping(struct uow *uow);

#endif
