/*
 * Linkifiers: validation as the reference's RealmFilter.full_clean(), storage with the realm_linkifiers event,
 * the per-process cache of compiled patterns, and the linkification of message text and topics.
 */
#include "model/linkifiers.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "core/arena.h"
#include "core/budget.h"
#include "core/buf.h"
#include "core/ids.h"
#include "core/re2c.h"
#include "core/uow.h"
#include "core/uritemplate.h"
#include "core/url.h"
#include "core/xalloc.h"
#include "db/db.h"
#include "events/events.h"
#include "model/markdown.h"
#include "model/realm.h"

#define RE_ERROR_MAX  512
#define URL_MAX       8192 /* an expanded URL longer than this is not linked */
#define CACHE_SLOTS   64   /* organizations whose compiled linkifiers a process keeps */
#define OUTER_GROUP   2    /* prepare_linkifier_pattern(): before (1), the match (2), ..., after (last) */
#define MAX_LINK_ARGS 64   /* named groups of a pattern passed to its template */

/* ---- validation --------------------------------------------------------------------------------------------- */

/* Django's ValidationError as a message dict: field -> messages, in the order of the model's fields. */
struct verrors {
	json_object *dict;
};

static void verror(struct uow *uow, struct verrors *e, const char *field, const char *msg)
{
	json_object *list;
	if (e->dict == NULL)
		e->dict = uow_own_json(uow, json_object_new_object());
	if (!json_object_object_get_ex(e->dict, field, &list)) {
		list = json_object_new_array();
		json_object_object_add(e->dict, field, list);
	}
	json_object_array_add(list, json_object_new_string(msg));
}

/* Records the errors as the reference's ValidationFailureError: the first message, and `errors`. -1. */
static int verrors_raise(struct uow *uow, struct verrors *e)
{
	const char *first = NULL;
	json_object_object_foreach (e->dict, field, list) {
		(void)field;
		if (first == NULL && json_object_array_length(list) > 0)
			first = json_object_get_string(json_object_array_get_idx(list, 0));
	}
	uow_error(uow, ERR_BAD_REQUEST, "%s", first ? first : "");
	uow_error_field(uow, "errors", json_object_get(e->dict));
	return -1;
}

struct names {
	const char *v[MAX_LINK_ARGS * 2];
	size_t len[MAX_LINK_ARGS * 2];
	int n;
};

static void names_add(void *ctx, const char *name, size_t len)
{
	struct names *s = ctx;
	if (s->n < (int)(sizeof(s->v) / sizeof(s->v[0]))) {
		s->v[s->n] = name;
		s->len[s->n++] = len;
	}
}

static bool names_has(const struct names *s, const char *name, size_t len)
{
	for (int i = 0; i < s->n; i++)
		if (s->len[i] == len && memcmp(s->v[i], name, len) == 0)
			return true;
	return false;
}

/* The alphabetically first name of a that b lacks (NULL: none), as Python's min() of the set difference. */
static const char *first_missing(struct uow *uow, const struct names *a, const struct names *b)
{
	const char *best = NULL;
	size_t best_len = 0;
	for (int i = 0; i < a->n; i++) {
		if (names_has(b, a->v[i], a->len[i]))
			continue;
		size_t m = a->len[i] < best_len ? a->len[i] : best_len;
		int c = best ? memcmp(a->v[i], best, m) : -1;
		if (best == NULL || c < 0 || (c == 0 && a->len[i] < best_len)) {
			best = a->v[i];
			best_len = a->len[i];
		}
	}
	return best ? arena_strndup(&uow->arena, best, best_len) : NULL;
}

static void group_names(const struct re2c *re, struct names *out)
{
	out->n = 0;
	for (int i = 1; i <= re2c_groups(re); i++)
		if (re2c_group_name(re, i) != NULL)
			names_add(out, re2c_group_name(re, i), strlen(re2c_group_name(re, i)));
}

/*
 * A reverse template's pieces: literal text with "{{" and "}}" for braces, and {name} placeholders. Calls fn for
 * each placeholder (when fn is given) and appends the expansion to out (when out is given, with the values of
 * the groups of m over text). Returns false for unbalanced braces.
 */
static bool reverse_walk(const char *t, struct names *vars, const struct re2c *re, const char *text,
                         const struct re2c_span *m, struct buf *out)
{
	for (const char *p = t; *p;) {
		if ((p[0] == '{' && p[1] == '{') || (p[0] == '}' && p[1] == '}')) {
			if (out)
				buf_add(out, p, 1);
			p += 2;
		} else if (*p == '}') {
			return false;
		} else if (*p == '{') {
			const char *end = strchr(p + 1, '}');
			if (end == NULL || end == p + 1 || memchr(p + 1, '{', (size_t)(end - p - 1)) != NULL)
				return false;
			if (vars)
				names_add(vars, p + 1, (size_t)(end - p - 1));
			if (out && re) {
				char name[256];
				size_t n =
				    (size_t)(end - p - 1) < sizeof(name) - 1 ? (size_t)(end - p - 1) : sizeof(name) - 1;
				memcpy(name, p + 1, n);
				name[n] = '\0';
				int g = re2c_group_index(re, name);
				if (g > 0 && m[g].begin >= 0)
					buf_add(out, text + m[g].begin, (size_t)(m[g].end - m[g].begin));
			}
			p = end + 1;
		} else {
			if (out)
				buf_add(out, p, 1);
			p++;
		}
	}
	return true;
}

/* The reverse-linkification fields (feature level 471): example_input must round-trip. */
static void check_reverse(struct uow *uow, struct verrors *e, const struct linkifier_input *in, const struct re2c *re,
                          const struct names *groups)
{
	struct names vars = {.n = 0};
	if (in->reverse_template == NULL)
		return;
	if (!reverse_walk(in->reverse_template, &vars, NULL, NULL, NULL, NULL)) {
		verror(uow, e, "reverse_template", "Invalid reverse template.");
		return;
	}
	if (in->example_input == NULL) {
		verror(uow, e, "example_input", "Example input is required for a reverse template.");
		return;
	}
	const char *missing = first_missing(uow, &vars, groups);
	if (missing != NULL) {
		verror(uow, e, "__all__",
		       arena_printf(&uow->arena, "Group '%s' in reverse template is not present in linkifier pattern.",
		                    missing));
		return;
	}
	if (re == NULL)
		return;
	struct re2c_span m[MAX_LINK_ARGS + 1];
	size_t len = strlen(in->example_input);
	if (!re2c_search(re, in->example_input, len, 0, m, MAX_LINK_ARGS + 1) || m[0].begin != 0 ||
	    (size_t)m[0].end != len) {
		verror(uow, e, "__all__", "Example input does not match the linkifier pattern.");
		return;
	}
	struct buf out;
	buf_init(&out, 2 * len + 1024);
	reverse_walk(in->reverse_template, NULL, re, in->example_input, m, &out);
	if (strcmp(buf_str(&out), in->example_input) != 0)
		verror(uow, e, "__all__", "Reverse template does not reproduce the example input.");
	buf_release(&out);
}

/* clean(): the pattern compiles, and its named groups are exactly the template's variables. */
static void check_clean(struct uow *uow, struct verrors *e, const struct linkifier_input *in)
{
	char err[RE_ERROR_MAX];
	struct re2c *re = re2c_compile(in->pattern, strlen(in->pattern), err, sizeof(err));
	if (re == NULL) {
		verror(uow, e, "__all__", arena_printf(&uow->arena, "Bad regular expression: %s", err));
		return;
	}
	struct names groups, vars = {.n = 0};
	group_names(re, &groups);
	if (uritemplate_variables(in->url_template, names_add, &vars) == 0) {
		const char *missing = first_missing(uow, &vars, &groups);
		const char *extra = missing ? NULL : first_missing(uow, &groups, &vars);
		if (missing)
			verror(uow, e, "__all__",
			       arena_printf(&uow->arena,
			                    "Group '%s' in URL template is not present in linkifier pattern.",
			                    missing));
		else if (extra)
			verror(uow, e, "__all__",
			       arena_printf(&uow->arena,
			                    "Group '%s' in linkifier pattern is not present in URL template.", extra));
		else
			check_reverse(uow, e, in, re, &groups);
	}
	re2c_free(re);
}

static struct db_stmt st_duplicate =
    DB_STMT("SELECT 1 FROM linkifiers WHERE realm_id = $1 AND pattern = $2 AND id <> $3");

/* full_clean(): the fields (blank, template syntax), clean(), then the unique (realm, pattern). 0 or -1. */
static int validate(struct uow *uow, int64_t id, const struct linkifier_input *in)
{
	struct verrors e = {NULL};
	if (*in->pattern == '\0')
		verror(uow, &e, "pattern", "This field cannot be blank.");
	if (*in->url_template == '\0')
		verror(uow, &e, "url_template", "This field cannot be blank.");
	else if (!uritemplate_is_valid(in->url_template))
		verror(uow, &e, "url_template", "Invalid URL template.");
	size_t n = in->alternative_url_templates ? json_object_array_length(in->alternative_url_templates) : 0;
	for (size_t i = 0; i < n; i++)
		if (!uritemplate_is_valid(
		        json_object_get_string(json_object_array_get_idx(in->alternative_url_templates, i)))) {
			verror(uow, &e, "alternative_url_templates", "Invalid URL template.");
			break;
		}
	check_clean(uow, &e, in);
	bool pattern_ok = e.dict == NULL || !json_object_object_get_ex(e.dict, "pattern", NULL);
	if (pattern_ok) {
		struct db_res *res =
		    DB_EXEC(uow, &st_duplicate, db_arg_int(uow, uow->realm->id), in->pattern, db_arg_int(uow, id));
		if (res == NULL)
			return -1;
		if (db_rows(res) > 0)
			verror(uow, &e, "__all__", "Realm filter with this Realm and Pattern already exists.");
	}
	return e.dict != NULL ? verrors_raise(uow, &e) : 0;
}

/* ---- storage and events ----------------------------------------------------------------------------------- */

#define LINKIFIER_JSON                                                                                                 \
	"json_build_object('pattern', l.pattern, 'url_template', l.url_template, 'id', l.id,"                          \
	" 'example_input', l.example_input, 'reverse_template', l.reverse_template,"                                   \
	" 'alternative_url_templates', l.alternative_url_templates)"

static struct db_stmt st_list = DB_STMT("SELECT COALESCE(json_agg(" LINKIFIER_JSON " ORDER BY l.\"order\", l.id),"
                                        " '[]')::text FROM linkifiers l WHERE l.realm_id = $1");

json_object *linkifiers_json(struct uow *uow)
{
	struct db_res *res = DB_EXEC(uow, &st_list, db_arg_int(uow, uow->realm->id));
	if (res == NULL)
		return NULL;
	json_object *list = json_tokener_parse(db_val(res, 0, 0));
	return list != NULL ? list : json_object_new_array();
}

static struct db_stmt st_active_ids = DB_STMT("SELECT id FROM users WHERE realm_id = $1 AND is_active ORDER BY id");

/* realm_linkifiers with the new list, to every active user (served only to linkifier_url_template clients). */
static int notify(struct uow *uow)
{
	uow->linkifiers = NULL; /* this unit of work must not render with the old ones */
	json_object *list = linkifiers_json(uow);
	struct db_res *res = list ? DB_EXEC(uow, &st_active_ids, db_arg_int(uow, uow->realm->id)) : NULL;
	if (res == NULL) {
		json_object_put(list);
		return -1;
	}
	int n;
	int64_t *ids = db_ids(uow, res, 0, &n);
	json_object *event = events_new(uow, "realm_linkifiers", NULL);
	json_object_object_add(event, "realm_linkifiers", list);
	return events_add(uow, event, ids, n, 0);
}

static struct db_stmt st_find = DB_STMT("SELECT 1 FROM linkifiers WHERE id = $1 AND realm_id = $2 FOR UPDATE");
static struct db_stmt st_insert =
    DB_STMT("INSERT INTO linkifiers (realm_id, pattern, url_template, example_input, reverse_template,"
            " alternative_url_templates, \"order\")"
            " SELECT $1, $2, $3, $4, $5, $6::jsonb, COALESCE(max(\"order\") + 1, 0) FROM linkifiers WHERE realm_id = $1"
            " RETURNING id");
static struct db_stmt st_update =
    DB_STMT("UPDATE linkifiers SET pattern = $3, url_template = $4, example_input = $5, reverse_template = $6,"
            " alternative_url_templates = $7::jsonb WHERE id = $1 AND realm_id = $2 RETURNING id");

int64_t linkifiers_save(struct uow *uow, int64_t id, const struct linkifier_input *raw)
{
	struct linkifier_input in = *raw;
	in.pattern = arena_strip(&uow->arena, raw->pattern);
	in.url_template = arena_strip(&uow->arena, raw->url_template);
	const char *realm = db_arg_int(uow, uow->realm->id);
	if (id != 0) {
		struct db_res *found = DB_EXEC(uow, &st_find, db_arg_int(uow, id), realm);
		if (found == NULL)
			return -1;
		if (db_rows(found) == 0)
			return uow_error(uow, ERR_BAD_REQUEST, "Linkifier not found.");
	}
	if (validate(uow, id, &in) < 0)
		return -1;
	const char *alt = in.alternative_url_templates
	                      ? json_object_to_json_string_ext(in.alternative_url_templates, JSON_C_TO_STRING_PLAIN)
	                      : "[]";
	struct db_res *res = id == 0 ? DB_EXEC(uow, &st_insert, realm, in.pattern, in.url_template, in.example_input,
	                                       in.reverse_template, alt)
	                             : DB_EXEC(uow, &st_update, db_arg_int(uow, id), realm, in.pattern, in.url_template,
	                                       in.example_input, in.reverse_template, alt);
	if (res == NULL || notify(uow) < 0)
		return -1;
	return db_int(res, 0, 0);
}

static struct db_stmt st_delete = DB_STMT("DELETE FROM linkifiers WHERE id = $1 AND realm_id = $2 RETURNING id");

int linkifiers_remove(struct uow *uow, int64_t id)
{
	struct db_res *res = DB_EXEC(uow, &st_delete, db_arg_int(uow, id), db_arg_int(uow, uow->realm->id));
	if (res == NULL)
		return -1;
	if (db_rows(res) == 0)
		return uow_error(uow, ERR_BAD_REQUEST, "Linkifier not found.");
	return notify(uow);
}

static struct db_stmt st_ids = DB_STMT("SELECT id FROM linkifiers WHERE realm_id = $1 ORDER BY id FOR UPDATE");
static struct db_stmt st_reorder =
    DB_STMT("UPDATE linkifiers l SET \"order\" = o.ord - 1"
            " FROM unnest($2::bigint[]) WITH ORDINALITY AS o (id, ord) WHERE l.id = o.id AND l.realm_id = $1");

int linkifiers_reorder(struct uow *uow, json_object *list)
{
	int n = (int)json_object_array_length(list);
	int64_t *ids = arena_alloc(&uow->arena, (size_t)(n + 1) * sizeof(*ids));
	int64_t *sorted = arena_alloc(&uow->arena, (size_t)(n + 1) * sizeof(*sorted));
	for (int i = 0; i < n; i++)
		ids[i] = sorted[i] = json_object_get_int64(json_object_array_get_idx(list, (size_t)i));
	qsort(sorted, (size_t)n, sizeof(*sorted), ids_cmp);
	for (int i = 1; i < n; i++)
		if (sorted[i] == sorted[i - 1])
			return uow_error(uow, ERR_BAD_REQUEST,
			                 "The ordered list must not contain duplicated linkifiers");
	const char *realm = db_arg_int(uow, uow->realm->id);
	int have;
	int64_t *existing = db_ids(uow, DB_EXEC(uow, &st_ids, realm), 0, &have);
	if (existing == NULL)
		return -1;
	if (have != n || (n > 0 && memcmp(existing, sorted, (size_t)n * sizeof(*sorted)) != 0))
		return uow_error(uow, ERR_BAD_REQUEST,
		                 "The ordered list must enumerate all existing linkifiers exactly once");
	if (n == 0)
		return 0; /* nothing to do, and no event, as the reference */
	if (DB_EXEC(uow, &st_reorder, realm, db_arg_ids(uow, ids, n)) == NULL)
		return -1;
	return notify(uow);
}

/* ---- compiled linkifiers, cached per organization ------------------------------------------------------------- */

struct compiled {
	int64_t id;
	struct re2c *re; /* the prepared pattern; NULL if it does not compile (then the linkifier is skipped) */
	char *url_template;
};

/* One organization's linkifiers at one version, shared by the process's threads (refs counts the users). */
struct linkifier_set {
	int64_t realm_id, version;
	int refs;
	int n;
	struct compiled *items;
};

static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static struct linkifier_set *cache[CACHE_SLOTS];

static void set_free(struct linkifier_set *s)
{
	for (int i = 0; i < s->n; i++) {
		re2c_free(s->items[i].re);
		free(s->items[i].url_template);
	}
	free(s->items);
	free(s);
}

static void set_release(void *p)
{
	struct linkifier_set *s = p;
	pthread_mutex_lock(&cache_lock);
	bool last = --s->refs == 0;
	pthread_mutex_unlock(&cache_lock);
	if (last)
		set_free(s);
}

/* A unit of work's reference to a set, given back with its arena (which also forgets the set). */
struct hold {
	struct uow *uow;
	struct linkifier_set *set;
};

static void hold_release(void *p)
{
	struct hold *h = p;
	if (h->uow->linkifiers == h->set)
		h->uow->linkifiers = NULL;
	set_release(h->set);
}

/*
 * The reference's prepare_linkifier_pattern(): a match starts the text or follows white space (\s, NEL, \pZ) or
 * an opening delimiter, and is not followed by a letter or digit.
 */
static struct re2c *compile_prepared(const char *pattern)
{
	static const char before[] =
	    "(?P<linkifier_before_match>^|\\s|\xc2\x85|\\pZ|['\"\\(,:<])(?P<linkifier_actual_match>";
	static const char after[] = ")(?P<linkifier_after_match>$|[^\\pL\\pN])";
	size_t n = strlen(pattern);
	char *p = xmalloc(sizeof(before) + n + sizeof(after));
	memcpy(p, before, sizeof(before) - 1);
	memcpy(p + sizeof(before) - 1, pattern, n);
	memcpy(p + sizeof(before) - 1 + n, after, sizeof(after));
	char err[RE_ERROR_MAX];
	struct re2c *re = re2c_compile(p, strlen(p), err, sizeof(err));
	free(p);
	return re;
}

static struct db_stmt st_patterns =
    DB_STMT("SELECT id, pattern, url_template FROM linkifiers WHERE realm_id = $1 ORDER BY \"order\", id");

/* Compiles the organization's linkifiers (read after the version, so they are at least that new). */
static struct linkifier_set *set_build(struct uow *uow, int64_t version)
{
	struct db_res *res = DB_EXEC(uow, &st_patterns, db_arg_int(uow, uow->realm->id));
	if (res == NULL)
		return NULL;
	struct linkifier_set *s = xcalloc(1, sizeof(*s));
	s->realm_id = uow->realm->id;
	s->version = version;
	s->n = db_rows(res);
	s->items = xcalloc((size_t)s->n + 1, sizeof(*s->items));
	for (int i = 0; i < s->n; i++) {
		s->items[i].id = db_int(res, i, 0);
		s->items[i].re = compile_prepared(db_val(res, i, 1));
		s->items[i].url_template = xstrdup(db_val(res, i, 2));
	}
	return s;
}

int linkifiers_load(struct uow *uow)
{
	if (uow->realm == NULL)
		return 0;
	if (uow->linkifiers != NULL && uow->linkifiers->realm_id == uow->realm->id)
		return 0;
	int64_t version = uow->realm->linkifier_version;
	size_t slot = (size_t)uow->realm->id % CACHE_SLOTS;
	pthread_mutex_lock(&cache_lock);
	struct linkifier_set *s = cache[slot];
	if (s != NULL && s->realm_id == uow->realm->id && s->version == version)
		s->refs++;
	else
		s = NULL;
	pthread_mutex_unlock(&cache_lock);
	if (s == NULL) {
		if ((s = set_build(uow, version)) == NULL)
			return -1;
		pthread_mutex_lock(&cache_lock);
		struct linkifier_set *old = cache[slot];
		cache[slot] = s;
		s->refs = 2; /* the cache's and this unit of work's */
		bool free_old = old != NULL && --old->refs == 0;
		pthread_mutex_unlock(&cache_lock);
		if (free_old)
			set_free(old);
	}
	struct hold *h = arena_alloc(&uow->arena, sizeof(*h));
	*h = (struct hold){uow, s};
	uow->linkifiers = s;
	arena_defer(&uow->arena, hold_release, h);
	return 0;
}

/* ---- linkification ------------------------------------------------------------------------------------------ */

/* A piece of the text being linkified: raw text, or a link a linkifier made. */
struct piece {
	size_t a, b; /* bytes of the original text */
	const char *url;
};

struct pieces {
	struct piece *v;
	int n, cap;
};

static void pieces_add(struct uow *uow, struct pieces *p, size_t a, size_t b, const char *url)
{
	if (a == b && url == NULL)
		return;
	if (p->n == p->cap) {
		int cap = p->cap ? 2 * p->cap : 16;
		struct piece *v = arena_alloc(&uow->arena, (size_t)cap * sizeof(*v));
		if (p->n)
			memcpy(v, p->v, (size_t)p->n * sizeof(*v));
		p->v = v;
		p->cap = cap;
	}
	p->v[p->n++] = (struct piece){a, b, url};
}

/* The named groups of one match, as NUL-terminated copies (the reference's groupdict(); None: undefined). */
struct match_vars {
	const struct re2c *re;
	const char *values[MAX_LINK_ARGS + 1]; /* by group number */
	int n;
};

static void match_vars_init(struct uow *uow, struct match_vars *v, const struct re2c *re, const char *s,
                            const struct re2c_span *m)
{
	v->re = re;
	v->n = re2c_groups(re) < MAX_LINK_ARGS ? re2c_groups(re) : MAX_LINK_ARGS;
	for (int g = 1; g <= v->n; g++)
		v->values[g] = m[g].begin < 0 || re2c_group_name(re, g) == NULL
		                   ? NULL
		                   : arena_strndup(&uow->arena, s + m[g].begin, (size_t)(m[g].end - m[g].begin));
}

static void group_value(void *ctx, const char *name, size_t len, struct ut_value *out)
{
	const struct match_vars *v = ctx;
	for (int g = 1; g <= v->n; g++) {
		const char *gn = re2c_group_name(v->re, g);
		if (gn != NULL && v->values[g] != NULL && strlen(gn) == len && memcmp(gn, name, len) == 0) {
			out->type = UT_STRING;
			out->str = v->values[g];
			return;
		}
	}
}

/* The URL of a match: the template expanded with its groups, sanitized as the reference's url_to_a(); NULL: none. */
static const char *match_url(struct uow *uow, const struct compiled *c, const char *s, const struct re2c_span *m)
{
	struct match_vars v;
	match_vars_init(uow, &v, c->re, s, m);
	struct buf b;
	buf_init(&b, URL_MAX);
	const char *url = NULL;
	if (uritemplate_expand(c->url_template, group_value, &v, &b) == 0)
		url = url_sanitize(&uow->arena, buf_str(&b));
	buf_release(&b);
	return url;
}

struct run {
	struct uow *uow;
	const char *text;
	char before, after;
	struct pieces p;
};

/* The text the reference's pattern sees: the context character, the pieces (links as placeholders), the next one. */
static char *run_string(struct run *r, size_t *len, size_t *starts)
{
	size_t n = 2;
	for (int i = 0; i < r->p.n; i++)
		n += r->p.v[i].url ? 2 : r->p.v[i].b - r->p.v[i].a;
	char *s = arena_alloc(&r->uow->arena, n + 1), *w = s;
	if (r->before)
		*w++ = r->before;
	for (int i = 0; i < r->p.n; i++) {
		starts[i] = (size_t)(w - s);
		if (r->p.v[i].url) {
			memcpy(w, "\x02\x03", 2); /* the reference's inline placeholder, STX ... ETX */
			w += 2;
		} else {
			memcpy(w, r->text + r->p.v[i].a, r->p.v[i].b - r->p.v[i].a);
			w += r->p.v[i].b - r->p.v[i].a;
		}
	}
	starts[r->p.n] = (size_t)(w - s);
	if (r->after)
		*w++ = r->after;
	*w = '\0';
	*len = (size_t)(w - s);
	return s;
}

struct found {
	int piece;
	size_t a, b; /* original offsets */
	const char *url;
};

/* One linkifier over the run, as the reference's processor applies one inline pattern again and again. Returns
 * -1 when the budget ran out on the way (the run is then left as it was), else 0. */
static int run_pass(struct run *r, const struct compiled *c, struct budget *budget)
{
	size_t len, *starts = arena_alloc(&r->uow->arena, ((size_t)r->p.n + 1) * sizeof(size_t));
	const char *s = run_string(r, &len, starts);
	struct re2c_span m[MAX_LINK_ARGS + 2];
	int ng = re2c_groups(c->re) + 1 < MAX_LINK_ARGS + 2 ? re2c_groups(c->re) + 1 : MAX_LINK_ARGS + 2;
	struct found *found = NULL;
	int nfound = 0, capfound = 0, k = 0;
	for (size_t pos = 0; pos < len;) {
		if (budget_tick(budget))
			return -1;
		if (!re2c_search(c->re, s, len, pos, m, ng))
			break;
		size_t a = (size_t)m[OUTER_GROUP].begin, b = (size_t)m[OUTER_GROUP].end, next = (size_t)m[0].end;
		while (k < r->p.n && starts[k + 1] <= a)
			k++;
		bool ok = a < b && k < r->p.n && r->p.v[k].url == NULL && a >= starts[k] && b <= starts[k + 1];
		const char *url = ok ? match_url(r->uow, c, s, m) : NULL;
		if (url != NULL) {
			if (nfound == capfound) {
				capfound = capfound ? 2 * capfound : 8;
				struct found *v = arena_alloc(&r->uow->arena, (size_t)capfound * sizeof(*v));
				if (nfound)
					memcpy(v, found, (size_t)nfound * sizeof(*v));
				found = v;
			}
			size_t base = r->p.v[k].a - starts[k];
			found[nfound++] = (struct found){k, a + base, b + base, url};
			next = b;
		}
		pos = next > pos ? next : pos + 1;
	}
	if (nfound == 0)
		return 0;
	struct pieces out = {NULL, 0, 0};
	for (int i = 0, f = 0; i < r->p.n; i++) {
		size_t at = r->p.v[i].a;
		for (; f < nfound && found[f].piece == i; f++) {
			pieces_add(r->uow, &out, at, found[f].a, NULL);
			pieces_add(r->uow, &out, found[f].a, found[f].b, found[f].url);
			at = found[f].b;
		}
		pieces_add(r->uow, &out, at, r->p.v[i].b, r->p.v[i].url);
	}
	r->p = out;
	return 0;
}

int linkifiers_linkify(void *ctx, const char *text, size_t len, char before, char after, struct budget *budget,
                       struct markdown_link **out)
{
	struct uow *uow = ctx;
	const struct linkifier_set *set = uow->linkifiers;
	*out = NULL;
	if (set == NULL || set->n == 0 || len == 0)
		return 0;
	struct run r = {uow, text, before, after, {NULL, 0, 0}};
	pieces_add(uow, &r.p, 0, len, NULL);
	for (int i = 0; i < set->n; i++)
		if (set->items[i].re != NULL && (budget_tick(budget) || run_pass(&r, &set->items[i], budget) < 0))
			return -1;
	int n = 0;
	for (int i = 0; i < r.p.n; i++)
		n += r.p.v[i].url != NULL;
	if (n == 0)
		return 0;
	*out = arena_alloc(&uow->arena, (size_t)n * sizeof(**out));
	for (int i = 0, j = 0; i < r.p.n; i++)
		if (r.p.v[i].url != NULL)
			(*out)[j++] = (struct markdown_link){r.p.v[i].a, r.p.v[i].b, r.p.v[i].url};
	return n;
}

/* ---- topic links -------------------------------------------------------------------------------------------- */

struct topic_match {
	const char *url;
	size_t index, len; /* the reference's index is the whole match's start, its length the text's */
	size_t text_at;
	int precedence; /* linkifiers in order; raw URLs after them */
};

static bool overlapping(const struct topic_match *x, const struct topic_match *y)
{
	return (y->index <= x->index && x->index < y->index + y->len) ||
	       (x->index <= y->index && y->index < x->index + x->len);
}

static int cmp_match(const void *a, const void *b)
{
	const struct topic_match *x = a, *y = b;
	if (x->precedence != y->precedence)
		return x->precedence - y->precedence;
	return (x->index > y->index) - (x->index < y->index);
}

static int cmp_index(const void *a, const void *b)
{
	const struct topic_match *x = a, *y = b;
	if (x->index != y->index)
		return (x->index > y->index) - (x->index < y->index);
	return x->precedence - y->precedence;
}

/*
 * Every match of the linkifiers in the topic (each linkifier on its own), then the raw http(s) URLs. A match whose
 * URL the Markdown renderer would not link (javascript: and the other schemes url_sanitize() refuses) is
 * none, as in message content; the reference hands such URLs out and trusts its clients to check them.
 */
static int topic_matches(struct uow *uow, const char *topic, struct topic_match **out)
{
	const struct linkifier_set *set = uow->linkifiers;
	size_t len = strlen(topic);
	int n = 0, cap = 16;
	struct topic_match *v = arena_alloc(&uow->arena, (size_t)cap * sizeof(*v));
	struct re2c_span m[MAX_LINK_ARGS + 2];
	for (int i = 0; set != NULL && i < set->n; i++) {
		const struct compiled *c = &set->items[i];
		int ng = c->re
		             ? (re2c_groups(c->re) + 1 < MAX_LINK_ARGS + 2 ? re2c_groups(c->re) + 1 : MAX_LINK_ARGS + 2)
		             : 0;
		for (size_t pos = 0; c->re != NULL && pos < len;) {
			if (!re2c_search(c->re, topic, len, pos, m, ng))
				break;
			size_t next = (size_t)(m[ng - 1].begin >= 0 ? m[ng - 1].begin : m[0].end);
			struct match_vars vars;
			match_vars_init(uow, &vars, c->re, topic, m);
			struct buf b;
			buf_init(&b, URL_MAX);
			if (uritemplate_expand(c->url_template, group_value, &vars, &b) == 0 &&
			    url_sanitize(&uow->arena, buf_str(&b)) != NULL) {
				if (n == cap) {
					struct topic_match *w =
					    arena_alloc(&uow->arena, (size_t)(cap *= 2) * sizeof(*w));
					memcpy(w, v, (size_t)n * sizeof(*w));
					v = w;
				}
				v[n++] =
				    (struct topic_match){arena_strdup(&uow->arena, buf_str(&b)), (size_t)m[0].begin,
				                         (size_t)(m[OUTER_GROUP].end - m[OUTER_GROUP].begin),
				                         (size_t)m[OUTER_GROUP].begin, i};
			}
			buf_release(&b);
			pos = next > pos ? next : pos + 1;
		}
	}
	qsort(v, (size_t)n, sizeof(*v), cmp_match);
	/* Raw URLs, in the segments between the reference's basic_link_splitter characters. */
	for (size_t pos = 0; pos < len;) {
		size_t end = pos + strcspn(topic + pos, " !;),'\"");
		size_t seg = end - pos;
		if ((seg > 8 && strncmp(topic + pos, "https://", 8) == 0) ||
		    (seg > 7 && strncmp(topic + pos, "http://", 7) == 0)) {
			if (n == cap) {
				struct topic_match *w = arena_alloc(&uow->arena, (size_t)(cap *= 2) * sizeof(*w));
				memcpy(w, v, (size_t)n * sizeof(*w));
				v = w;
			}
			v[n++] = (struct topic_match){arena_strndup(&uow->arena, topic + pos, seg), pos, seg, pos,
			                              set ? set->n : 0};
		}
		pos = end + 1;
	}
	*out = v;
	return n;
}

json_object *linkifiers_topic_links(struct uow *uow, const char *topic)
{
	json_object *list = json_object_new_array();
	if (topic == NULL || *topic == '\0' || linkifiers_load(uow) < 0)
		return list;
	struct topic_match *v;
	int n = topic_matches(uow, topic, &v), kept = 0;
	struct topic_match *applied = arena_alloc(&uow->arena, ((size_t)n + 1) * sizeof(*applied));
	for (int i = 0; i < n; i++) {
		bool clash = false;
		for (int j = 0; j < kept && !clash; j++)
			clash = overlapping(&applied[j], &v[i]);
		if (!clash)
			applied[kept++] = v[i];
	}
	qsort(applied, (size_t)kept, sizeof(*applied), cmp_index);
	for (int i = 0; i < kept; i++) {
		json_object *o = json_object_new_object();
		json_object_object_add(o, "text",
		                       json_object_new_string_len(topic + applied[i].text_at, (int)applied[i].len));
		json_object_object_add(o, "url", json_object_new_string(applied[i].url));
		json_object_array_add(list, o);
	}
	return list;
}
