/* The unit of work: lifecycle and its one error record; see uow.h. */
#include "core/uow.h"

#include <stdarg.h>
#include <string.h>

#include "core/jsonx.h"

void uow_init(struct uow *u, struct worker *w, unsigned long long id)
{
	memset(u, 0, sizeof(*u));
	arena_init(&u->arena);
	u->worker = w;
	u->id = id;
}

void uow_finish(struct uow *u)
{
	/* The connections' cleanups run here too (registered by db/ and redis/ when they were taken). */
	arena_free(&u->arena);
	u->db_cleanup = u->redis_cleanup = false;
}

int uow_verror(struct uow *u, enum err e, const char *fmt, va_list ap)
{
	if (u->error != ERR_NONE)
		return -1;
	u->error = e;
	u->error_msg = fmt == NULL ? err_info(e)->msg : arena_vprintf(&u->arena, fmt, ap);
	return -1;
}

int uow_error(struct uow *u, enum err e, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	uow_verror(u, e, fmt, ap);
	va_end(ap);
	return -1;
}

static void json_put(void *obj)
{
	json_object_put(obj);
}

json_object *uow_own_json(struct uow *u, json_object *obj)
{
	arena_defer(&u->arena, json_put, obj);
	return obj;
}

int uow_parse_client_json(struct uow *u, const char *s, size_t len, json_object **out)
{
	*out = NULL;
	if (arena_charge(&u->arena, jsonx_cost(s, len)) < 0)
		return uow_error(u, ERR_TOO_LARGE, NULL);
	if (jsonx_parse(s, len, out) < 0)
		return 1;
	uow_own_json(u, *out);
	return 0;
}

void uow_error_field(struct uow *u, const char *key, json_object *value)
{
	if (u->error_fields == NULL)
		u->error_fields = uow_own_json(u, json_object_new_object());
	json_object_object_add(u->error_fields, key, value);
}
