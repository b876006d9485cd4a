/*
 * The shapes of the structured parameters: a JSON value a client sent (a list of objects, a list of ids or
 * addresses) checked value by value and turned into a typed C struct, or the reference's error. Nothing here reads
 * the database or Redis, so the libFuzzer target tests/fuzz/fuzz_shapes.c runs the handlers' own checks; the handlers
 * call these first and then decide with the database. Every result lives in the request's arena (strings and json
 * members belong to the parameter's JSON, which the request owns). Each returns 0, or -1 with the error recorded.
 */
#ifndef CONFAB_SHAPES_H
#define CONFAB_SHAPES_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct request;

/* The reference's Stream.MAX_DESCRIPTION_LENGTH, in code points. */
#define SHAPE_MAX_CHANNEL_DESCRIPTION 1024

/*
 * One item of subscription_data (the reference's SubscriptionPropertyChangeRequest): stream_id an integer, property a
 * string, value a boolean or a string ("subscription_data[0][\"value\"][\"bool\"] is not a boolean", pydantic's words
 * for a union), then the property's own rule: "Unknown subscription property: x", "x is not a boolean", "color is
 * not a valid hex color code". Every item is checked before the handler touches any channel.
 */
struct property_change {
	int64_t stream_id;
	const char *property;
	bool is_color; /* else a boolean property, in flag */
	bool flag;
	const char *color;
};
int shape_subscription_data(struct request *req, json_object *list, struct property_change **out, size_t *n);

/*
 * One item of POST /users/me/subscriptions' subscriptions (the reference's AddSubscriptionData): name a string
 * (stripped here), color and description strings or null; a description of at most SHAPE_MAX_CHANNEL_DESCRIPTION
 * characters, its newlines made spaces; a color as check_color() accepts it ("Invalid subscriptions[0]: Value error,
 * add.color is not a valid hex color code").
 */
struct channel_request {
	const char *name;
	const char *description; /* NULL: not given */
	const char *color;       /* NULL: not given */
};
int shape_subscriptions(struct request *req, json_object *list, struct channel_request **out, size_t *n);

/*
 * principals (the reference's list[str] | list[int]): all e-mail addresses or all user ids; NULL json is none.
 * A list of neither is pydantic's error for the union's first member: "principals[\"list[str]\"][1] is not a
 * string".
 */
struct principal_list {
	bool by_email;
	size_t n;
	const int64_t *ids;   /* !by_email */
	json_object **emails; /* by_email: the strings, owned by the parameter */
};
int shape_principals(struct request *req, json_object *list, struct principal_list *out);

/* A draft as sent (the reference's DraftData, extra keys forbidden), named var ("drafts[0]", "draft"). */
struct draft {
	const char *type; /* "", "stream" or "private" */
	json_object *to;  /* a list of at most SHAPE_MAX_DRAFT_RECIPIENTS integers */
	json_object *topic;
	json_object *content;
	json_object *timestamp; /* NULL: now; else an integer or a float */
};
/* Recipients of one draft; confab's bound, as for a message's (docs/LIMITS.md). */
#define SHAPE_MAX_DRAFT_RECIPIENTS 1000
int shape_draft(struct request *req, const char *var, json_object *d, struct draft *out);
/* drafts: a list of drafts, each checked. */
int shape_drafts(struct request *req, json_object *list, struct draft **out, size_t *n);

/* POST /typing's to (the reference's Json[list[int]] | None): a list of integers, or NULL; "to is not a list",
 * "to[1] is not an integer". */
int shape_typing_to(struct request *req, json_object *to);

/* The to of a scheduled message (the reference's Json[int | list[int]]): a channel id or a list of user ids;
 * anything else is pydantic's error for the union's first member, "to[\"int\"] is not an integer". */
int shape_scheduled_to(struct request *req, json_object *to);

#endif
