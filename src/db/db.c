/* Connection pool and statement execution over libpq; see db.h. */
#include "db/db.h"

#include <libpq-fe.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "core/metrics.h"
#include "core/slots.h"
#include "core/xalloc.h"
#include "core/uow.h"

#define DB_MAX_STMTS 1024

struct db_conn {
	PGconn *pg;
	bool cache_notice; /* a trigger said that cached rows changed (db_take_cache_notice()) */
	/* db_begin() was called and nothing has run since: the BEGIN goes with the next statement (begin_and_run()) */
	struct db_stmt *pending_begin;
	unsigned char prepared[DB_MAX_STMTS];
};

struct db_pool {
	char *conninfo;
	int size;
	bool prepared; /* named statements (pg_prepared_statements) */
	struct db_conn *conns;
	struct slots slots;
};

struct db_res {
	PGresult *res;
};

static atomic_int next_stmt_id;

struct db_pool *db_pool_new(const char *conninfo, int size, bool prepared)
{
	struct db_pool *pool = xcalloc(1, sizeof(*pool));
	/* Without a connect timeout a dead host would hold a request for minutes. */
	pool->conninfo = strstr(conninfo, "connect_timeout") ? xstrdup(conninfo) : NULL;
	if (pool->conninfo == NULL) {
		size_t len = strlen(conninfo) + 32;
		pool->conninfo = xmalloc(len);
		snprintf(pool->conninfo, len, "%s connect_timeout=5", conninfo);
	}
	pool->size = size;
	pool->prepared = prepared;
	pool->conns = xcalloc((size_t)size, sizeof(*pool->conns));
	slots_init(&pool->slots, pool->size);
	return pool;
}

void db_pool_free(struct db_pool *pool)
{
	if (pool == NULL)
		return;
	for (int i = 0; i < pool->size; i++)
		if (pool->conns[i].pg != NULL)
			PQfinish(pool->conns[i].pg);
	free(pool->conns);
	free(pool->conninfo);
	slots_destroy(&pool->slots);
	free(pool);
}

/*
 * Notices of the server. The cache triggers (migrations/0024_caches.sql) raise one with SQLSTATE
 * DB_CACHE_NOTICE_SQLSTATE when a statement changes rows that processes keep copies of; others are logged.
 */
static void notice_receiver(void *arg, const PGresult *r)
{
	struct db_conn *c = arg;
	const char *state = PQresultErrorField(r, PG_DIAG_SQLSTATE);
	if (state != NULL && strcmp(state, DB_CACHE_NOTICE_SQLSTATE) == 0) {
		c->cache_notice = true;
		return;
	}
	log_msg(LOG_INFO, "database notice: %s", PQresultErrorMessage(r));
}

/* Makes sure c has a working connection; returns 0 or -1. */
static int conn_open(struct db_pool *pool, struct db_conn *c)
{
	if (c->pg != NULL && PQstatus(c->pg) == CONNECTION_OK)
		return 0;
	memset(c->prepared, 0, sizeof(c->prepared));
	if (c->pg == NULL) {
		c->pg = PQconnectdb(pool->conninfo);
		PQsetNoticeReceiver(c->pg, notice_receiver, c);
	} else
		PQreset(c->pg);
	if (PQstatus(c->pg) != CONNECTION_OK) {
		log_msg(LOG_WARNING, "could not connect to database: %s", PQerrorMessage(c->pg));
		return -1;
	}
	return 0;
}

static void release_cleanup(void *uow)
{
	db_release(uow);
}

static struct db_conn *acquire(struct uow *uow)
{
	if (uow->db != NULL)
		return uow->db;
	/* Given back with the unit of work's memory: its arena runs the cleanup (once, however often it is taken). */
	if (!uow->db_cleanup) {
		arena_defer(&uow->arena, release_cleanup, uow);
		uow->db_cleanup = true;
	}
	struct db_pool *pool = uow->worker->db;
	long long waited;
	struct db_conn *c = &pool->conns[slots_take(&pool->slots, &waited)];
	metrics_pool_take(uow->worker->metrics, M_PG_ACQUIRES, waited);
	uow->db = c;
	c->cache_notice = false;
	if (conn_open(pool, c) < 0) {
		metrics_add(uow->worker->metrics, M_PG_CONNECT_ERRORS, 1);
		return NULL;
	}
	return c;
}

void db_release(struct uow *uow)
{
	struct db_conn *c = uow->db;
	if (c == NULL)
		return;
	if (c->pg != NULL && PQpipelineStatus(c->pg) != PQ_PIPELINE_OFF) {
		/* A pipeline left behind by a failed send: the connection's state is unknown, so it is dropped (and
		 * with it any transaction); the next user connects again. */
		PQfinish(c->pg);
		c->pg = NULL;
	} else if (uow->in_txn && c->pending_begin == NULL) {
		PGresult *r = PQexec(c->pg, "ROLLBACK");
		PQclear(r);
	}
	uow->in_txn = false;
	c->pending_begin = NULL;
	struct db_pool *pool = uow->worker->db;
	slots_give(&pool->slots, (int)(c - pool->conns));
	uow->db = NULL;
}

static void clear_result(void *r)
{
	PQclear(r);
}

static int stmt_id(struct db_stmt *st)
{
	int id = atomic_load(&st->id);
	if (id == 0) {
		int fresh = atomic_fetch_add(&next_stmt_id, 1) + 1;
		int expected = 0;
		id = atomic_compare_exchange_strong(&st->id, &expected, fresh) ? fresh : expected;
	}
	if (id >= DB_MAX_STMTS) {
		log_msg(LOG_FATAL, "more than %d distinct statements", DB_MAX_STMTS);
		abort();
	}
	return id;
}

/*
 * Ends a pipeline of n queries sent with a sync (sent: whether sending all of them worked): reads every result,
 * keeps each query's first in out[] (a made-up error where none came: the connection broke) and leaves pipeline
 * mode.
 */
static void pipeline_finish(struct db_conn *c, bool sent, PGresult **out, int n)
{
	PGresult *r;
	for (int i = 0; i < n; i++)
		out[i] = NULL;
	/* Each query's results end with a NULL; then comes the sync (stop early if the connection broke). */
	for (int i = 0; sent && i < n; i++)
		while ((r = PQgetResult(c->pg)) != NULL) {
			if (out[i] == NULL)
				out[i] = r;
			else
				PQclear(r);
		}
	while (sent && (r = PQgetResult(c->pg)) != NULL) {
		ExecStatusType s = PQresultStatus(r);
		PQclear(r);
		if (s == PGRES_PIPELINE_SYNC)
			break;
	}
	PQexitPipelineMode(c->pg);
	for (int i = 0; i < n; i++)
		if (out[i] == NULL)
			out[i] = PQmakeEmptyPGresult(c->pg, PGRES_FATAL_ERROR);
}

/* Sends st in a pipeline: as the prepared statement name, or (name "") its text unnamed. */
static bool send_stmt(struct db_conn *c, const struct db_stmt *st, const char *name, const char *const *params, int n)
{
	return *name ? PQsendQueryPrepared(c->pg, name, n, params, NULL, NULL, 0)
	             : PQsendQueryParams(c->pg, st->sql, n, NULL, params, NULL, NULL, 0);
}

/* Sends one statement without parameters in a pipeline. */
static bool send_sql(struct db_conn *c, const char *sql)
{
	return PQsendQueryParams(c->pg, sql, 0, NULL, NULL, NULL, NULL, 0);
}

/*
 * Executes the prepared statement name (or, name "", st's text unnamed) between SET and RESET of plan_cache_mode,
 * pipelined in one round trip (one implicit transaction outside BEGIN: a failure undoes the SET too; one server
 * connection behind a transaction pooler). Returns the statement's result.
 */
static PGresult *run_generic(struct db_conn *c, const struct db_stmt *st, const char *name, const char *const *params,
                             int n)
{
	if (!PQenterPipelineMode(c->pg))
		return *name ? PQexecPrepared(c->pg, name, n, params, NULL, NULL, 0)
		             : PQexecParams(c->pg, st->sql, n, NULL, params, NULL, NULL, 0);
	bool sent = send_sql(c, "SET plan_cache_mode = force_generic_plan") && send_stmt(c, st, name, params, n) &&
	            send_sql(c, "RESET plan_cache_mode") && PQpipelineSync(c->pg);
	PGresult *out[3];
	pipeline_finish(c, sent, out, 3);
	PQclear(out[0]);
	PQclear(out[2]);
	return out[1];
}

/*
 * Prepares st on c unless it is already (or statements are not prepared: name is then ""); fills name ("s<id>").
 * NULL, or the failed PREPARE's result.
 */
static PGresult *prepare(const struct db_pool *pool, struct db_conn *c, struct db_stmt *st, char name[16])
{
	*name = '\0';
	if (!pool->prepared)
		return NULL;
	int id = stmt_id(st);
	snprintf(name, 16, "s%d", id);
	if (c->prepared[id])
		return NULL;
	PGresult *p = PQprepare(c->pg, name, st->sql, 0, NULL);
	if (PQresultStatus(p) != PGRES_COMMAND_OK)
		return p;
	PQclear(p);
	c->prepared[id] = 1;
	return NULL;
}

/*
 * One attempt: prepare st on c if needed, then execute it; or, without prepared statements, parse, bind and
 * execute it unnamed in one round trip (nothing outlives the statement on the server). Returns the result
 * (possibly an error result).
 */
static PGresult *run(const struct db_pool *pool, struct db_conn *c, struct db_stmt *st, const char *const *params,
                     int n)
{
	char name[16];
	PGresult *failed = prepare(pool, c, st, name);
	if (failed != NULL)
		return failed;
	if (st->generic)
		return run_generic(c, st, name, params, n);
	return *name ? PQexecPrepared(c->pg, name, n, params, NULL, NULL, 0)
	             : PQexecParams(c->pg, st->sql, n, NULL, params, NULL, NULL, 0);
}

static bool result_ok(const PGresult *r)
{
	ExecStatusType s = PQresultStatus(r);
	return s == PGRES_COMMAND_OK || s == PGRES_TUPLES_OK;
}

/*
 * The first statement of a transaction: its BEGIN and the statement pipelined in one round trip (a transaction
 * costs no round trip of its own for BEGIN). The statement is prepared first if needed (outside the transaction,
 * as run() does); a generic-plan statement (a pipeline of its own) gets its BEGIN alone. The BEGIN is no longer
 * pending once the server took it; a broken connection leaves it pending (nothing ran: exec() may retry).
 */
static PGresult *begin_and_run(const struct db_pool *pool, struct db_conn *c, struct db_stmt *st,
                               const char *const *params, int n)
{
	char name[16];
	PGresult *failed = prepare(pool, c, st, name);
	if (failed != NULL)
		return failed;
	if (st->generic || !PQenterPipelineMode(c->pg)) {
		PGresult *b = PQexec(c->pg, c->pending_begin->sql);
		if (!result_ok(b))
			return b;
		PQclear(b);
		c->pending_begin = NULL;
		return run(pool, c, st, params, n);
	}
	bool sent = send_sql(c, c->pending_begin->sql) && send_stmt(c, st, name, params, n) && PQpipelineSync(c->pg);
	PGresult *out[2];
	pipeline_finish(c, sent, out, 2);
	bool begun = PQresultStatus(out[0]) == PGRES_COMMAND_OK;
	if (begun)
		c->pending_begin = NULL;
	/* The statement's result; or the BEGIN's, if that failed (the statement's then says only "aborted"). */
	PQclear(begun ? out[0] : out[1]);
	return begun ? out[1] : out[0];
}

/* Logs the failure of r, frees r and returns the error it amounts to. */
static enum err fail(struct uow *uow, struct db_conn *c, PGresult *r, const char *sql)
{
	enum err e = ERR_INTERNAL;
	if (PQstatus(c->pg) != CONNECTION_OK) {
		log_msg(LOG_WARNING, "request %llu: lost database connection: %s", uow->id, PQerrorMessage(c->pg));
		metrics_add(uow->worker->metrics, M_PG_CONNECT_ERRORS, 1);
		e = ERR_UNAVAILABLE;
	} else {
		const char *state = r ? PQresultErrorField(r, PG_DIAG_SQLSTATE) : NULL;
		log_msg(LOG_ERROR, "request %llu: query failed (SQLSTATE %s): %s: %.200s", uow->id, state ? state : "?",
		        r ? PQresultErrorMessage(r) : PQerrorMessage(c->pg), sql);
		metrics_add(uow->worker->metrics, M_PG_QUERY_ERRORS, 1);
	}
	PQclear(r);
	return e;
}

/* A result of the request (freed with its arena). */
static struct db_res *keep_result(struct uow *uow, PGresult *r)
{
	struct db_res *res = arena_alloc(&uow->arena, sizeof(*res));
	res->res = r;
	arena_defer(&uow->arena, clear_result, r);
	return res;
}

/* Executes st; returns the result, or NULL with *e set and nothing recorded (the callers decide). */
static struct db_res *exec(struct uow *uow, struct db_stmt *st, const char *const *params, int n, enum err *e)
{
	struct db_conn *c = acquire(uow);
	*e = ERR_UNAVAILABLE;
	if (c == NULL)
		return NULL;
	struct db_pool *pool = uow->worker->db;
	PGresult *r = c->pending_begin ? begin_and_run(pool, c, st, params, n) : run(pool, c, st, params, n);
	if (!result_ok(r) && PQstatus(c->pg) != CONNECTION_OK && (!uow->in_txn || c->pending_begin != NULL)) {
		/* A stale connection (the server restarted): nothing ran, so reset and try once more. */
		PQclear(r);
		if (conn_open(pool, c) < 0) {
			metrics_add(uow->worker->metrics, M_PG_CONNECT_ERRORS, 1);
			return NULL;
		}
		r = c->pending_begin ? begin_and_run(pool, c, st, params, n) : run(pool, c, st, params, n);
	}
	if (!result_ok(r)) {
		*e = fail(uow, c, r, st->sql);
		return NULL;
	}
	*e = ERR_NONE;
	return keep_result(uow, r);
}

struct db_res *db_exec(struct uow *uow, struct db_stmt *st, const char *const *params, int n)
{
	enum err e;
	struct db_res *res = exec(uow, st, params, n, &e);
	if (res == NULL)
		uow_error(uow, e, NULL);
	return res;
}

struct db_res *db_try_exec(struct uow *uow, struct db_stmt *st, const char *const *params, int n)
{
	enum err e;
	return exec(uow, st, params, n, &e);
}

int db_exec_script(struct uow *uow, const char *sql)
{
	struct db_conn *c = acquire(uow);
	if (c == NULL)
		return uow_error(uow, ERR_UNAVAILABLE, NULL);
	if (c->pending_begin != NULL) {
		PGresult *b = PQexec(c->pg, c->pending_begin->sql);
		if (!result_ok(b))
			return uow_error(uow, fail(uow, c, b, c->pending_begin->sql), NULL);
		PQclear(b);
		c->pending_begin = NULL;
	}
	PGresult *r = PQexec(c->pg, sql);
	if (!result_ok(r))
		return uow_error(uow, fail(uow, c, r, sql), NULL);
	PQclear(r);
	return 0;
}

const char *db_arg_int(struct uow *uow, int64_t v)
{
	return arena_printf(&uow->arena, "%lld", (long long)v);
}

const char *db_arg_ids(struct uow *uow, const int64_t *ids, int n)
{
	char *s = arena_alloc(&uow->arena, (size_t)n * 21 + 3), *p = s;
	*p++ = '{';
	for (int i = 0; i < n; i++)
		p += sprintf(p, "%s%lld", i ? "," : "", (long long)ids[i]);
	strcpy(p, "}");
	return s;
}

int db_rows(const struct db_res *res)
{
	return PQntuples(res->res);
}

const char *db_val(const struct db_res *res, int row, int col)
{
	return PQgetvalue(res->res, row, col);
}

bool db_null(const struct db_res *res, int row, int col)
{
	return PQgetisnull(res->res, row, col);
}

int64_t db_int(const struct db_res *res, int row, int col)
{
	return strtoll(PQgetvalue(res->res, row, col), NULL, 10);
}

int64_t *db_ids(struct uow *uow, const struct db_res *res, int col, int *n)
{
	if (res == NULL)
		return NULL;
	*n = db_rows(res);
	int64_t *ids = arena_alloc(&uow->arena, (size_t)(*n + 1) * sizeof(*ids));
	for (int i = 0; i < *n; i++)
		ids[i] = db_int(res, i, col);
	return ids;
}

bool db_bool(const struct db_res *res, int row, int col)
{
	return PQgetvalue(res->res, row, col)[0] == 't';
}

int db_read_row(const struct db_res *res, int row, int col, const struct db_field *fields, int n, void *obj)
{
	int c = col;
	for (int i = 0; i < n; i++) {
		void *p = (char *)obj + fields[i].offset;
		const char *v = PQgetvalue(res->res, row, c);
		switch (fields[i].type) {
		case DB_I64: *(int64_t *)p = strtoll(v, NULL, 10); break;
		case DB_INT: *(int *)p = (int)strtol(v, NULL, 10); break;
		case DB_BOOL: *(bool *)p = v[0] == 't'; break;
		case DB_CHAR: *(char *)p = v[0]; break;
		case DB_STR: *(const char **)p = v; break;
		case DB_STRN: *(const char **)p = PQgetisnull(res->res, row, c) ? NULL : v; break;
		case DB_ISNULL:
		case DB_NOTNULL:
			*(bool *)p = PQgetisnull(res->res, row, c) == (fields[i].type == DB_ISNULL);
			continue; /* the flag's column is the next entry's */
		}
		c++;
	}
	return c - col;
}

struct db_res *db_res_from_values(struct uow *uow, int rows, int cols, const char *const *values)
{
	PGresult *r = PQmakeEmptyPGresult(NULL, PGRES_TUPLES_OK);
	PGresAttDesc *attrs = arena_alloc(&uow->arena, (size_t)cols * sizeof(*attrs));
	for (int c = 0; c < cols; c++)
		attrs[c] = (PGresAttDesc){.name = arena_printf(&uow->arena, "c%d", c), .typid = 25, .typlen = -1};
	PQsetResultAttrs(r, cols, attrs);
	for (int i = 0; i < rows * cols; i++) {
		const char *v = values[i];
		PQsetvalue(r, i / cols, i % cols, (char *)(v ? v : ""), v ? (int)strlen(v) : -1);
	}
	struct db_res *res = arena_alloc(&uow->arena, sizeof(*res));
	res->res = r;
	arena_defer(&uow->arena, clear_result, r);
	return res;
}

static struct db_stmt st_begin = DB_STMT("BEGIN");
static struct db_stmt st_begin_rr = DB_STMT("BEGIN ISOLATION LEVEL REPEATABLE READ");
static struct db_stmt st_commit = DB_STMT("COMMIT");
static struct db_stmt st_ping = DB_STMT("SELECT 1");

/*
 * Transactions begin lazily: db_begin() only notes the BEGIN, which is sent with the transaction's first statement
 * (begin_and_run()); a transaction in which nothing ran commits or rolls back without a round trip.
 */
static int begin_with(struct uow *uow, struct db_stmt *begin)
{
	struct db_conn *c = acquire(uow);
	if (c == NULL)
		return uow_error(uow, ERR_UNAVAILABLE, NULL);
	c->pending_begin = begin;
	uow->in_txn = true;
	return 0;
}

int db_begin(struct uow *uow)
{
	return uow->in_txn ? 0 : begin_with(uow, &st_begin);
}

int db_begin_repeatable_read(struct uow *uow)
{
	if (uow->in_txn) {
		log_msg(LOG_ERROR, "request %llu: repeatable read asked inside an open transaction", uow->id);
		return uow_error(uow, ERR_INTERNAL, NULL);
	}
	return begin_with(uow, &st_begin_rr);
}

int db_commit(struct uow *uow)
{
	if (!uow->in_txn)
		return 0;
	if (uow->db != NULL && uow->db->pending_begin != NULL) {
		uow->db->pending_begin = NULL;
		uow->in_txn = false;
		return 0;
	}
	struct db_res *r = db_exec(uow, &st_commit, NULL, 0);
	uow->in_txn = false;
	return r == NULL ? -1 : 0;
}

/*
 * st and COMMIT pipelined in one round trip (st prepared first if needed). Returns st's result with the
 * transaction committed, or NULL with *e set: st failed (the transaction is left open and aborted, for
 * db_release()'s ROLLBACK) or the COMMIT did (the transaction is over).
 */
static struct db_res *exec_commit(struct uow *uow, struct db_conn *c, struct db_stmt *st, const char *const *params,
                                  int n, enum err *e)
{
	char name[16];
	PGresult *failed = prepare(uow->worker->db, c, st, name);
	if (failed != NULL) {
		*e = fail(uow, c, failed, st->sql);
		return NULL;
	}
	bool sent = PQenterPipelineMode(c->pg) && send_stmt(c, st, name, params, n) && send_sql(c, st_commit.sql) &&
	            PQpipelineSync(c->pg);
	PGresult *out[2];
	pipeline_finish(c, sent, out, 2);
	if (result_ok(out[0]))
		uow->in_txn = false; /* the COMMIT ran: it ended the transaction, whatever it answered */
	if (!result_ok(out[0]) || !result_ok(out[1])) {
		bool first = !result_ok(out[0]);
		*e = fail(uow, c, first ? out[0] : out[1], first ? st->sql : st_commit.sql);
		PQclear(first ? out[1] : out[0]);
		return NULL;
	}
	PQclear(out[1]);
	*e = ERR_NONE;
	return keep_result(uow, out[0]);
}

struct db_res *db_exec_commit(struct uow *uow, struct db_stmt *st, const char *const *params, int n)
{
	struct db_conn *c = uow->db;
	if (!uow->in_txn || c == NULL || c->pending_begin != NULL || st->generic) {
		/* No statement ran yet (or no transaction), or a generic plan (a pipeline of its own): the plain way.
		 */
		struct db_res *res = db_exec(uow, st, params, n);
		return res != NULL && db_commit(uow) == 0 ? res : NULL;
	}
	enum err e;
	struct db_res *res = exec_commit(uow, c, st, params, n, &e);
	if (res == NULL)
		uow_error(uow, e, NULL);
	return res;
}

/* st then next pipelined (next between SET and RESET of plan_cache_mode if it is generic); see db_exec_pair(). */
static struct db_res *exec_pair(struct uow *uow, struct db_conn *c, struct db_stmt *st, const char *const *params,
                                int n, struct db_stmt *next, const char *const *next_params, int next_n,
                                struct db_res **next_res, enum err *e)
{
	char name[16], next_name[16];
	struct db_stmt *failed_st = st;
	PGresult *failed = prepare(uow->worker->db, c, st, name);
	if (failed == NULL && (failed = prepare(uow->worker->db, c, next, next_name)) != NULL)
		failed_st = next;
	if (failed != NULL) {
		*e = fail(uow, c, failed, failed_st->sql);
		return NULL;
	}
	bool sent = PQenterPipelineMode(c->pg) && send_stmt(c, st, name, params, n) &&
	            (!next->generic || send_sql(c, "SET plan_cache_mode = force_generic_plan")) &&
	            send_stmt(c, next, next_name, next_params, next_n) &&
	            (!next->generic || send_sql(c, "RESET plan_cache_mode")) && PQpipelineSync(c->pg);
	PGresult *out[4];
	int nout = next->generic ? 4 : 2, at = next->generic ? 2 : 1;
	pipeline_finish(c, sent, out, nout);
	int bad = -1; /* the first that failed: those after it were only skipped */
	for (int i = 0; i < nout && bad < 0; i++)
		if (!result_ok(out[i]))
			bad = i;
	for (int i = 0; i < nout; i++)
		if (i != bad && (bad >= 0 || (i != 0 && i != at)))
			PQclear(out[i]);
	if (bad >= 0) {
		*e = fail(uow, c, out[bad], bad == 0 ? st->sql : next->sql);
		return NULL;
	}
	*next_res = keep_result(uow, out[at]);
	*e = ERR_NONE;
	return keep_result(uow, out[0]);
}

struct db_res *db_exec_pair(struct uow *uow, struct db_stmt *st, const char *const *params, int n, struct db_stmt *next,
                            const char *const *next_params, int next_n, struct db_res **next_res)
{
	struct db_conn *c = uow->db;
	*next_res = NULL;
	if (!uow->in_txn || c == NULL || c->pending_begin != NULL || st->generic) {
		/* No statement ran yet (or no transaction), or st needs a pipeline of its own: one at a time. */
		struct db_res *res = db_exec(uow, st, params, n);
		return res != NULL && (*next_res = db_exec(uow, next, next_params, next_n)) != NULL ? res : NULL;
	}
	enum err e;
	struct db_res *res = exec_pair(uow, c, st, params, n, next, next_params, next_n, next_res, &e);
	if (res == NULL)
		uow_error(uow, e, NULL);
	return res;
}

bool db_take_cache_notice(struct uow *uow)
{
	if (uow->db == NULL || !uow->db->cache_notice)
		return false;
	uow->db->cache_notice = false;
	return true;
}

int db_ping(struct uow *uow)
{
	enum err e;
	return exec(uow, &st_ping, NULL, 0, &e) == NULL ? -1 : 0;
}
