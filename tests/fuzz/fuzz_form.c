/*
 * libFuzzer target for the body parsers (form.c): the first line of the input is the Content-Type, the rest
 * the body of a POST, so one corpus covers urlencoded bodies (the query-string parser), multipart bodies with
 * any boundary and the bodies of unknown types. Besides the sanitizers it checks form.h's promises: values
 * are NUL-terminated and valid UTF-8 (file parts excepted), a rejected multipart body adds nothing, and the
 * response built from the parameters is valid JSON.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "http/form.h"
#include "http/request.h"

static void check_params(struct request *req)
{
	for (size_t i = 0; i < req->nraw; i++) {
		struct raw_param *p = &req->raw[i];
		FUZZ_CHECK(p->name != NULL && p->value != NULL && p->value[p->len] == '\0');
		if (p->filename == NULL)
			FUZZ_CHECK(fuzz_is_utf8(p->value, p->len));
		FUZZ_CHECK(request_find_param(req, p->name) != NULL || p->filename != NULL);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *in = (const char *)data;
	const char *nl = memchr(in, '\n', size);
	size_t ctlen = nl ? (size_t)(nl - in) : size;
	struct request req;
	request_init(&req, NULL, 1);
	req.method = "POST";
	req.path = "/messages";
	req.content_type = arena_strndup(&req.arena, in, ctlen);
	/* A copy of exactly the body's size, so that ASan sees every read past its end. */
	size_t blen = nl ? size - ctlen - 1 : 0;
	char *body = malloc(blen ? blen : 1);
	memcpy(body, nl ? nl + 1 : "", blen);
	req.body = body;
	req.body_len = blen;

	int rc = form_parse_body(&req);
	if (rc < 0)
		FUZZ_CHECK(req.nraw == 0 && req.error == ERR_BAD_REQUEST);
	check_params(&req);
	size_t len;
	const char *out = request_body_json(&req, &len);
	FUZZ_CHECK(fuzz_is_json(out, len));

	request_finish(&req);
	free(body);
	return 0;
}
