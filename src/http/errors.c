/* Errors of an HTTP request, recorded on its unit of work; see errors.h. */
#include "http/errors.h"

#include <stdarg.h>

#include "http/request.h"

int api_error(struct request *req, enum err e, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	uow_verror(&req->uow, e, fmt, ap);
	va_end(ap);
	return -1;
}

void api_error_field(struct request *req, const char *key, json_object *value)
{
	uow_error_field(&req->uow, key, value);
}
