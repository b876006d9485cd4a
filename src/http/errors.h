/*
 * Errors of an HTTP request: a handler writes `return api_error(req, ERR_BAD_REQUEST, "Invalid channel ID");`
 * and the response is built from it. The error type and table are core/error.h; the record is the request's unit
 * of work (uow_error(), which the layers below use).
 */
#ifndef CONFAB_ERRORS_H
#define CONFAB_ERRORS_H

#include <json-c/json.h>

#include "core/error.h"

struct request;

/*
 * Records error e on req with a printf-style message (NULL fmt: the default message) and returns -1.
 * The first error recorded wins; later calls only return -1.
 */
int api_error(struct request *req, enum err e, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Adds an extra field to the recorded error object; takes ownership of value. */
void api_error_field(struct request *req, const char *key, json_object *value);

#endif
