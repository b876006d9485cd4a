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
	/* db_begin() was called and nothing has run since: the BEGIN goes with the next statement (exec_pipe()) */
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

static struct db_stmt st_begin = DB_STMT("BEGIN");
static struct db_stmt st_begin_rr = DB_STMT("BEGIN ISOLATION LEVEL REPEATABLE READ");
static struct db_stmt st_commit = DB_STMT("COMMIT");
static struct db_stmt st_ping = DB_STMT("SELECT 1");

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

/* Gives connection i of the pool (its slot taken after waiting waited us) to uow, connecting it if needed; NULL if
 * that failed (the connection stays the unit of work's until it is given back). */
static struct db_conn *take(struct uow *uow, int i, long long waited)
{
	/* Given back with the unit of work's memory: its arena runs the cleanup (once, however often it is taken). */
	if (!uow->db_cleanup) {
		arena_defer(&uow->arena, release_cleanup, uow);
		uow->db_cleanup = true;
	}
	struct db_pool *pool = uow->worker->db;
	struct db_conn *c = &pool->conns[i];
	metrics_pool_take(uow->worker->metrics, M_PG_ACQUIRES, waited);
	uow->db = c;
	c->cache_notice = false;
	if (conn_open(pool, c) < 0) {
		metrics_add(uow->worker->metrics, M_PG_CONNECT_ERRORS, 1);
		return NULL;
	}
	return c;
}

static struct db_conn *acquire(struct uow *uow)
{
	if (uow->db != NULL)
		return uow->db;
	long long waited;
	int i = slots_take(&uow->worker->db->slots, &waited);
	return take(uow, i, waited);
}

int db_acquire_if_free(struct uow *uow)
{
	if (uow->db != NULL)
		return 0;
	int i = slots_try_take(&uow->worker->db->slots);
	return i >= 0 && take(uow, i, 0) != NULL ? 0 : -1;
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

static bool result_ok(const PGresult *r)
{
	ExecStatusType s = PQresultStatus(r);
	return s == PGRES_COMMAND_OK || s == PGRES_TUPLES_OK;
}

/*
 * The queries of one round trip, in order: statements with their parameters (st; prepared as name, or its text
 * unnamed) and fixed SQL (st NULL): the transaction's pending BEGIN, SET and RESET of plan_cache_mode, COMMIT.
 */
#define PIPE_MAX 12

struct pipe {
	int n;
	struct piped {
		struct db_stmt *st;
		const char *sql;
		char name[16];
		const char *const *params;
		int nparams;
	} q[PIPE_MAX];
};

static const char set_generic[] = "SET plan_cache_mode = force_generic_plan", reset_generic[] = "RESET plan_cache_mode";

static int pipe_sql(struct pipe *p, const char *sql)
{
	p->q[p->n] = (struct piped){.sql = sql};
	return p->n++;
}

/*
 * Adds st, between SET and RESET of plan_cache_mode when it always takes its generic plan (DB_STMT_GENERIC; SET is
 * transactional: a failure undoes it with the transaction, or with the pipeline's implicit one outside BEGIN).
 * Returns its index.
 */
static int pipe_stmt(struct pipe *p, struct db_stmt *st, const char *const *params, int n)
{
	if (st->generic && p->n > 0 && p->q[p->n - 1].sql == reset_generic)
		p->n--; /* the statement before is generic too: the SET holds for both */
	else if (st->generic)
		pipe_sql(p, set_generic);
	p->q[p->n] = (struct piped){.st = st, .sql = st->sql, .params = params, .nparams = n};
	int at = p->n++;
	if (st->generic)
		pipe_sql(p, reset_generic);
	return at;
}

/* Sends query q of a pipeline (PQsend*: pipeline mode) or, sync, executes it (PQexec*). */
static bool send_query(struct db_conn *c, const struct piped *q)
{
	if (q->st == NULL)
		return PQsendQueryParams(c->pg, q->sql, 0, NULL, NULL, NULL, NULL, 0);
	return *q->name ? PQsendQueryPrepared(c->pg, q->name, q->nparams, q->params, NULL, NULL, 0)
	                : PQsendQueryParams(c->pg, q->sql, q->nparams, NULL, q->params, NULL, NULL, 0);
}

static PGresult *exec_query(struct db_conn *c, const struct piped *q)
{
	if (q->st == NULL)
		return PQexec(c->pg, q->sql);
	return *q->name ? PQexecPrepared(c->pg, q->name, q->nparams, q->params, NULL, NULL, 0)
	                : PQexecParams(c->pg, q->sql, q->nparams, NULL, q->params, NULL, NULL, 0);
}

/*
 * Runs p on c: its statements prepared first where needed, then all of it in one round trip (one query alone
 * without pipeline mode). Every query's result into out[]; returns the index of a statement whose PREPARE failed
 * (nothing ran: out[] holds that failure there, made-up errors elsewhere), else -1.
 */
static int pipe_run(const struct db_pool *pool, struct db_conn *c, struct pipe *p, PGresult **out)
{
	for (int i = 0; i < p->n; i++) {
		PGresult *failed = p->q[i].st ? prepare(pool, c, p->q[i].st, p->q[i].name) : NULL;
		if (failed != NULL) {
			for (int k = 0; k < p->n; k++)
				out[k] = k == i ? failed : PQmakeEmptyPGresult(c->pg, PGRES_FATAL_ERROR);
			return i;
		}
	}
	if (p->n == 1 || !PQenterPipelineMode(c->pg)) {
		for (int i = 0; i < p->n; i++)
			out[i] = i == 0 || result_ok(out[i - 1]) ? exec_query(c, &p->q[i])
			                                         : PQmakeEmptyPGresult(c->pg, PGRES_FATAL_ERROR);
		return -1;
	}
	bool sent = true;
	for (int i = 0; sent && i < p->n; i++)
		sent = send_query(c, &p->q[i]);
	pipeline_finish(c, sent && PQpipelineSync(c->pg), out, p->n);
	return -1;
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

/*
 * Executes the statements st[0..k) (k <= 3) with their parameters in one round trip, after the transaction's pending
 * BEGIN and, when commit is set, before its COMMIT; their results into res[0..k). Returns ERR_NONE, or the error of
 * the first query that failed (logged; those after it were only skipped) with nothing recorded (the callers decide).
 * A stale connection (the server restarted) on which nothing of the transaction ran yet is reset and tried once
 * more.
 */
static enum err exec_pipe(struct uow *uow, int k, struct db_stmt *const *st, const char *const *const *params,
                          const int *n, bool commit, struct db_res **res)
{
	struct db_conn *c = acquire(uow);
	if (c == NULL)
		return ERR_UNAVAILABLE;
	struct db_pool *pool = uow->worker->db;
	for (int attempt = 0;; attempt++) {
		struct pipe p = {0};
		int begin_at = c->pending_begin ? pipe_sql(&p, c->pending_begin->sql) : -1, at[3];
		for (int i = 0; i < k; i++)
			at[i] = pipe_stmt(&p, st[i], params[i], n[i]);
		int commit_at = commit ? pipe_sql(&p, st_commit.sql) : -1;
		PGresult *out[PIPE_MAX];
		int bad = pipe_run(pool, c, &p, out); /* a failed PREPARE, else the first query that failed */
		for (int i = 0; i < p.n && bad < 0; i++)
			if (!result_ok(out[i]))
				bad = i;
		bool retry = bad >= 0 && attempt == 0 && PQstatus(c->pg) != CONNECTION_OK && !commit &&
		             (!uow->in_txn || c->pending_begin != NULL);
		if (!retry && begin_at >= 0 && result_ok(out[begin_at]))
			c->pending_begin = NULL; /* the server took it (a retry sends it again) */
		if (commit_at >= 0 && (bad < 0 || bad == commit_at))
			uow->in_txn = false; /* the COMMIT ran: it ended the transaction, whatever it answered */
		for (int i = 0; i < p.n; i++)
			if (i != bad && (bad >= 0 || retry || p.q[i].st == NULL))
				PQclear(out[i]);
		if (retry) {
			PQclear(out[bad]);
			if (conn_open(pool, c) < 0) {
				metrics_add(uow->worker->metrics, M_PG_CONNECT_ERRORS, 1);
				return ERR_UNAVAILABLE;
			}
			continue;
		}
		if (bad >= 0)
			return fail(uow, c, out[bad], p.q[bad].sql);
		for (int i = 0; i < k; i++)
			res[i] = keep_result(uow, out[at[i]]);
		return ERR_NONE;
	}
}

static struct db_res *exec(struct uow *uow, struct db_stmt *st, const char *const *params, int n, enum err *e)
{
	struct db_res *res = NULL;
	*e = exec_pipe(uow, 1, &st, &params, &n, false, &res);
	return *e == ERR_NONE ? res : NULL;
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

/*
 * Transactions begin lazily: db_begin() only notes the BEGIN, which is sent with the transaction's first statement
 * (exec_pipe()); a transaction in which nothing ran commits or rolls back without a round trip.
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

struct db_res *db_exec_commit(struct uow *uow, struct db_stmt *st, const char *const *params, int n)
{
	if (!uow->in_txn || uow->db == NULL || uow->db->pending_begin != NULL) {
		/* No transaction, or nothing of it ran yet (a stale connection can then be retried): the plain way. */
		struct db_res *res = db_exec(uow, st, params, n);
		return res != NULL && db_commit(uow) == 0 ? res : NULL;
	}
	struct db_res *res = NULL;
	enum err e = exec_pipe(uow, 1, &st, &params, &n, true, &res);
	if (e != ERR_NONE)
		uow_error(uow, e, NULL);
	return res;
}

struct db_res *db_exec_pair(struct uow *uow, struct db_stmt *st, const char *const *params, int n, struct db_stmt *next,
                            const char *const *next_params, int next_n, struct db_res **next_res)
{
	*next_res = NULL;
	if (!uow->in_txn) {
		/* Outside a transaction each is its own. */
		struct db_res *res = db_exec(uow, st, params, n);
		return res != NULL && (*next_res = db_exec(uow, next, next_params, next_n)) != NULL ? res : NULL;
	}
	struct db_stmt *sts[] = {st, next};
	const char *const *ps[] = {params, next_params};
	int ns[] = {n, next_n};
	struct db_res *res[2] = {NULL, NULL};
	enum err e = exec_pipe(uow, 2, sts, ps, ns, false, res);
	if (e != ERR_NONE) {
		uow_error(uow, e, NULL);
		return NULL;
	}
	*next_res = res[1];
	return res[0];
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
