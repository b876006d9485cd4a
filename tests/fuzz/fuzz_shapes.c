/*
 * libFuzzer target for the structured parameters, through the checks the handlers themselves call before they
 * touch the database: api/shapes.h (subscription_data, subscriptions, principals, drafts, typing's and scheduled
 * messages' to), model/profile_fields.h (profile data), model/messages.h (a message's to, direct or channel),
 * model/narrow.h (narrow, with the organization's lookups faked) and http/params.h (group-setting values and
 * changes). The input is
 *
 *     NAME\n
 *     the value (JSON; any text for message_to and channel_to), made UTF-8 as the form parser makes it
 *
 * A value is accepted or refused with a recorded BAD_REQUEST (never a crash, never a refusal without a message);
 * what is accepted has the types its struct promises the handler.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "api/shapes.h"
#include "fuzz.h"
#include "http/form.h"
#include "http/params.h"
#include "http/request.h"
#include "model/channels.h"
#include "model/messages.h"
#include "model/narrow.h"
#include "model/profile_fields.h"
#include "model/realm.h"
#include "model/user.h"

/* ---- a fake organization for narrows: channel 5 "Denmark", users 10 and 11 -------------------------------- */

static struct realm realm = {.id = 1};
static struct user me = {.id = 10, .realm_id = 1, .role = ROLE_MEMBER, .is_active = true};
static struct channel denmark = {.id = 5, .name = "Denmark", .content_access = true};

static const struct channel *fake_channel(struct uow *uow, json_object *operand)
{
	(void)uow;
	FUZZ_CHECK(json_object_is_type(operand, json_type_int) || json_object_is_type(operand, json_type_string));
	if (json_object_is_type(operand, json_type_int))
		return json_object_get_int64(operand) == 5 ? &denmark : NULL;
	return strcmp(json_object_get_string(operand), "Denmark") == 0 ? &denmark : NULL;
}

static int64_t fake_user(struct uow *uow, json_object *operand)
{
	(void)uow;
	FUZZ_CHECK(json_object_is_type(operand, json_type_int) || json_object_is_type(operand, json_type_string));
	return json_object_is_type(operand, json_type_int) && json_object_get_int64(operand) == 11 ? 11 : 0;
}

static int fake_dm_users(struct uow *uow, json_object *operand, int64_t **ids, int *n)
{
	FUZZ_CHECK(json_object_is_type(operand, json_type_array) || json_object_is_type(operand, json_type_string));
	*ids = arena_alloc(&uow->arena, sizeof(**ids));
	**ids = 11;
	*n = 1;
	return json_object_is_type(operand, json_type_array) ? 0 : 1;
}

static int64_t fake_conversation(struct uow *uow, const int64_t *ids, int n)
{
	(void)uow;
	(void)ids;
	return n == 2 ? 100 : 0;
}

static int fake_with_target(struct uow *uow, int64_t id, struct narrow_conversation *out)
{
	(void)uow;
	if (id != 500)
		return 0;
	*out = (struct narrow_conversation){.channel_id = 5, .topic = "lunch"};
	return 1;
}

static const struct narrow_lookup lookup = {fake_channel, fake_user, fake_dm_users, fake_conversation,
                                            fake_with_target};

/* ---- the shapes and what each promises ------------------------------------------------------------------- */

static void check_subscription_data(struct request *req, json_object *j)
{
	struct property_change *c;
	size_t n;
	if (shape_subscription_data(req, j, &c, &n) < 0)
		return;
	FUZZ_CHECK(n == json_object_array_length(j));
	for (size_t i = 0; i < n; i++) {
		FUZZ_CHECK(c[i].property != NULL);
		FUZZ_CHECK(!c[i].is_color || (strcmp(c[i].property, "color") == 0 && c[i].color[0] == '#'));
	}
}

static void check_subscriptions(struct request *req, json_object *j)
{
	struct channel_request *c;
	size_t n;
	if (shape_subscriptions(req, j, &c, &n) < 0)
		return;
	for (size_t i = 0; i < n; i++) {
		FUZZ_CHECK(c[i].name != NULL);
		FUZZ_CHECK(c[i].description == NULL ||
		           (strchr(c[i].description, '\n') == NULL &&
		            utf8_length(c[i].description) <= SHAPE_MAX_CHANNEL_DESCRIPTION));
		FUZZ_CHECK(c[i].color == NULL || c[i].color[0] == '#');
	}
}

static void check_principals(struct request *req, json_object *j)
{
	struct principal_list p;
	if (shape_principals(req, j, &p) < 0)
		return;
	for (size_t i = 0; i < p.n; i++)
		FUZZ_CHECK(!p.by_email || json_object_is_type(p.emails[i], json_type_string));
}

static void check_drafts(struct request *req, json_object *j)
{
	struct draft *d;
	size_t n;
	if (shape_drafts(req, j, &d, &n) < 0)
		return;
	for (size_t i = 0; i < n; i++) {
		FUZZ_CHECK(d[i].type != NULL && json_object_is_type(d[i].to, json_type_array));
		FUZZ_CHECK(json_object_array_length(d[i].to) <= SHAPE_MAX_DRAFT_RECIPIENTS);
		for (size_t k = 0; k < json_object_array_length(d[i].to); k++)
			FUZZ_CHECK(json_object_is_type(json_object_array_get_idx(d[i].to, k), json_type_int));
		FUZZ_CHECK(json_object_is_type(d[i].topic, json_type_string));
		FUZZ_CHECK(json_object_is_type(d[i].content, json_type_string));
	}
}

static void check_message_to(struct request *req, const char *text)
{
	struct message_recipients r;
	const char *refusal = NULL;
	if (message_parse_direct(&req->uow, text, &r, &refusal) != 0) {
		FUZZ_CHECK(refusal != NULL || req->error == ERR_TOO_LARGE);
		return;
	}
	FUZZ_CHECK(r.n > 0 && r.n <= MESSAGE_MAX_RECIPIENTS);
	for (int i = 0; r.by_email && i < r.n; i++)
		FUZZ_CHECK(r.emails[i] != NULL && r.emails[i][0] != '\0');
}

static void check_channel_to(struct request *req, const char *text)
{
	int64_t id;
	const char *name;
	if (message_channel_indicator(&req->uow, text, &id, &name) == 0)
		FUZZ_CHECK(name != NULL || id != 0 || strstr(text, "0") != NULL);
	else
		FUZZ_CHECK(req->error == ERR_BAD_REQUEST);
}

/* A group setting as a route declares it, through param_validate(). */
static void check_group(struct request *req, const char *text, enum param_type type)
{
	static const struct param_spec setting[] = {{"x", PT_GROUP_SETTING, 0, 0, NULL}, {NULL, 0, 0, 0, NULL}};
	static const struct param_spec update[] = {{"x", PT_GROUP_UPDATE, 0, 0, NULL}, {NULL, 0, 0, 0, NULL}};
	request_add_param(req, "x", text, strlen(text));
	if (param_validate(req, type == PT_GROUP_SETTING ? setting : update) < 0)
		return;
	const struct group_setting_value *g =
	    type == PT_GROUP_SETTING ? req->values[0].group : &req->values[0].update->new_value;
	FUZZ_CHECK(g != NULL && (g->is_anonymous ? json_object_is_type(g->json, json_type_object)
	                                         : json_object_is_type(g->json, json_type_int)));
	FUZZ_CHECK(!g->is_anonymous || (g->nmembers <= PARAM_MAX_ITEMS && g->nsubgroups <= PARAM_MAX_ITEMS));
}

/* Runs the shape named name on text; the value is refused or accepted, as the checks above say. */
static void run(struct request *req, const char *name, const char *text, size_t len)
{
	if (strcmp(name, "message_to") == 0) {
		check_message_to(req, text);
		return;
	}
	if (strcmp(name, "channel_to") == 0) {
		check_channel_to(req, text);
		return;
	}
	if (strcmp(name, "group_setting") == 0 || strcmp(name, "group_update") == 0) {
		check_group(req, text, strcmp(name, "group_setting") == 0 ? PT_GROUP_SETTING : PT_GROUP_UPDATE);
		return;
	}
	json_object *j;
	if (jsonx_parse(text, len, &j) < 0)
		return;
	request_own_json(req, j);
	if (strcmp(name, "subscription_data") == 0)
		check_subscription_data(req, j);
	else if (strcmp(name, "subscriptions") == 0)
		check_subscriptions(req, j);
	else if (strcmp(name, "principals") == 0)
		check_principals(req, j);
	else if (strcmp(name, "drafts") == 0)
		check_drafts(req, j);
	else if (strcmp(name, "typing_to") == 0)
		shape_typing_to(req, j);
	else if (strcmp(name, "scheduled_to") == 0)
		shape_scheduled_to(req, j);
	else if (strcmp(name, "profile_data") == 0)
		profile_data_check_shape(&req->uow, j, true);
	else if (strcmp(name, "data") == 0)
		profile_data_check_shape(&req->uow, j, false);
	else if (strcmp(name, "narrow") == 0)
		narrow_parse_with(&req->uow, j, &lookup);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *nl = memchr(data, '\n', size);
	if (nl == NULL)
		return 0;
	struct request req;
	request_init(&req, NULL, 1);
	req.realm = &realm;
	req.user = &me;
	char *name = arena_strndup(&req.arena, (const char *)data, (size_t)(nl - (const char *)data));
	size_t len = size - (size_t)(nl + 1 - (const char *)data);
	/* A copy of exactly the value's size (plus its NUL), so that ASan sees every read past its end. */
	char *text = malloc(len + 1);
	memcpy(text, nl + 1, len);
	text[len] = '\0';
	/* As the form parser hands every value on: invalid UTF-8 replaced (http/form.h). */
	size_t vlen;
	const char *value = form_repair_utf8(&req, text, len, &vlen);
	run(&req, name, value, vlen);
	/* Refused or accepted, never refused without a message. */
	FUZZ_CHECK(req.error == ERR_NONE || req.error_msg != NULL);
	size_t out_len;
	const char *out = request_body_json(&req, &out_len);
	FUZZ_CHECK(fuzz_is_json(out, out_len));
	request_finish(&req);
	free(text);
	return 0;
}
