/*
 * PostgreSQL access. The only module that includes libpq. A process holds one pool of connections sized
 * independently of its thread count; a unit of work (core/uow.h) takes a connection on its first query and gives
 * it back when its arena is freed (a cleanup registered then). Statements are always parameterized, and prepared once
 * per connection unless pg_prepared_statements is off. No session state is ever set (no SET, session advisory lock,
 * LISTEN, temporary table or cursor): a connection may be a transaction pooler's, whose server session changes
 * from one transaction (or autocommitted statement) to the next.
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
#include <stddef.h>
#include <stdint.h>

struct uow;
struct db_pool;
struct db_res;

/* A statement; declare as `static struct db_stmt st = DB_STMT("SELECT ...");`. */
struct db_stmt {
	const char *sql;
	atomic_int id; /* assigned on first use */
	bool generic;  /* always the generic plan (DB_STMT_GENERIC) */
};
#define DB_STMT(text)                                                                                                  \
	{                                                                                                              \
		.sql = (text)                                                                                          \
	}
/*
 * A statement that always runs its generic plan (plan_cache_mode = force_generic_plan around it, in the same round
 * trip): for statements whose custom plans PostgreSQL keeps estimating cheaper, so that it would plan them anew at
 * every execution (a narrow's fetch: most of its CASE folds away once the parameters are known).
 */
#define DB_STMT_GENERIC(text)                                                                                          \
	{                                                                                                              \
		.sql = (text), .generic = true                                                                         \
	}

/*
 * Creates a pool of size connections to conninfo; connects lazily. Never NULL. prepared (the setting
 * pg_prepared_statements): statements are prepared once per connection under a name; false runs each one unnamed
 * (PQexecParams), as a transaction pooler (pgbouncer, pool_mode = transaction) needs: a named statement lives in
 * one server session, which the next transaction may not get.
 */
struct db_pool *db_pool_new(const char *conninfo, int size, bool prepared);
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
/* Column col of every row as integers, in the arena (one spare slot); *n is the row count. NULL, *n untouched,
 * for a NULL res (the failed query's error is recorded already). */
int64_t *db_ids(struct uow *uow, const struct db_res *res, int col, int *n);

/*
 * Rows read by name: a struct's columns are one list, written once as an X-macro of entries
 *   X(member, type, "SQL expression")   a column, read into member (DB_I64, DB_INT, DB_BOOL, DB_CHAR, DB_STR, DB_STRN)
 *   F(member, type)                     a flag about the next column (DB_ISNULL, DB_NOTNULL), no column of its own
 * whose first column is written X0 instead of X. From the list come the SELECT list (DB_SQL0, DB_SQL, DB_SQL_FLAG:
 * static text, the columns separated by ", ") and the table db_read_row() reads (DB_FIELD for both kinds).
 * SQL NULL reads as 0, false, "" (DB_STR) or NULL (DB_STRN); strings point into the result.
 */
enum db_type {
	DB_I64,     /* int64_t */
	DB_INT,     /* int */
	DB_BOOL,    /* bool */
	DB_CHAR,    /* char: the first byte of the text ('\0' for NULL) */
	DB_STR,     /* const char * */
	DB_STRN,    /* const char *, NULL for SQL NULL */
	DB_ISNULL,  /* bool: the next column is NULL */
	DB_NOTNULL, /* bool: the next column is not NULL */
};
struct db_field {
	size_t offset;
	enum db_type type;
};
#define DB_SQL0(member, type, sql) sql
#define DB_SQL(member, type, sql)  ", " sql
#define DB_SQL_FLAG(member, type)
#define DB_FIELD(T, member, type) {offsetof(T, member), (type)},
#define DB_NFIELDS(table)         ((int)(sizeof(table) / sizeof((table)[0])))

/* Reads the n fields of row from column col on into obj; returns the number of columns read. */
int db_read_row(const struct db_res *res, int row, int col, const struct db_field *fields, int n, void *obj);
/*
 * A result of rows x cols text values (row-major; NULL entries are SQL NULL) made without a server, owned by
 * the unit of work: for unit tests of readers.
 */
struct db_res *db_res_from_values(struct uow *uow, int rows, int cols, const char *const *values);

/* Starts the request's transaction (one per request). Returns 0 or -1. */
int db_begin(struct uow *uow);
/*
 * Starts the request's transaction at REPEATABLE READ: every statement of it sees the snapshot taken by its first
 * statement. Must be the request's first transaction (an open one is an internal error). Returns 0 or -1.
 */
int db_begin_repeatable_read(struct uow *uow);
/* Commits it. Returns 0 or -1 (error recorded). */
int db_commit(struct uow *uow);
/*
 * Executes st as the open transaction's last statement and commits, both in one round trip. Returns st's result,
 * or NULL with the error recorded (st failed: the transaction is rolled back at db_release(); or the COMMIT did).
 * Outside a transaction, or before any statement of it ran, the same as db_exec() then db_commit().
 */
struct db_res *db_exec_commit(struct uow *uow, struct db_stmt *st, const char *const *params, int n);
#define DB_EXEC_COMMIT(uow, st, ...) db_exec_commit((uow), (st), (const char *[]){__VA_ARGS__}, DB_NARGS(__VA_ARGS__))
/*
 * Executes st, then next, in one round trip inside the open transaction: next may depend on what st did, not on its
 * result (currval() of a sequence st advanced, say). Returns st's result and sets *next_res to next's, or NULL with
 * the error recorded (either failed: the transaction is left aborted, for db_release()'s ROLLBACK). The
 * transaction's BEGIN goes in the same round trip when nothing of it ran yet. Outside a transaction, the same as
 * db_exec() of each in turn.
 */
struct db_res *db_exec_pair(struct uow *uow, struct db_stmt *st, const char *const *params, int n, struct db_stmt *next,
                            const char *const *next_params, int next_n, struct db_res **next_res);
/*
 * Gives uow a connection of the pool only if one is free now (a second connection for work done beside a request's
 * own, which must not wait for one: the requests holding the others may be waiting for theirs). 0 if uow holds a
 * working connection, else -1 with nothing recorded.
 */
int db_acquire_if_free(struct uow *uow);
/* Rolls back an open transaction and returns the connection to the pool; also run by the arena cleanup that
 * acquiring registered, so calling it early (a long-poll about to wait) is optional. */
void db_release(struct uow *uow);

/*
 * True (once) if a statement of the unit of work changed rows that processes keep in their caches (model/cache.h):
 * the cache triggers raise a notice with this SQLSTATE, which the connection notes instead of logging it.
 */
#define DB_CACHE_NOTICE_SQLSTATE "CF001"
bool db_take_cache_notice(struct uow *uow);

/* A probe: returns 0 if PostgreSQL answers a trivial query, else -1 with nothing recorded (the failure is logged). */
int db_ping(struct uow *uow);

#endif
