/*
 * Structured parameters: every value inside a list of objects (subscription_data, subscriptions, principals,
 * drafts, profile data, narrow) is type-checked before use, with the reference's words (its typed_endpoint and
 * pydantic: "subscription_data[0][\"property\"] is not a string"). Each refusal is followed by a request that must
 * succeed: a value of the wrong type once crashed the api worker that read it (issue 29: property null, strcmp(NULL)),
 * and with it every request in flight on that process (nginx answered 502). Reference: zerver/lib/typed_endpoint.py;
 * zerver/views/streams.py (SubscriptionPropertyChangeRequest, AddSubscriptionData, principals), zerver/lib/drafts.py,
 * zerver/views/custom_profile_fields.py.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "itest.h"

/* One refused value: the JSON the parameter holds and the message the client reads. */
struct shape_case {
	const char *json;
	const char *msg;
};

/* Sends param=json for each case (form extra before it) to path as u; each must be refused with its message, and
 * the next request of u must still be answered. */
static void refuse_all(const struct user *u, const char *method, const char *path, const char *extra, const char *param,
                       const struct shape_case *cases)
{
	for (const struct shape_case *c = cases; c->json != NULL; c++) {
		struct resp *r =
		    http(&(struct request){.method = method,
		                           .path = fmt("/api/v1%s", path),
		                           .user = u,
		                           .form = fmt("%s%s=%s", extra ? extra : "", param, url_encode(c->json))});
		EXPECT_ERROR(r, 400, "BAD_REQUEST", c->msg);
		EXPECT_SUCCESS(api_get(u, "/users/me"));
	}
}

/* The request of issue 29, as a guest: one request crashed the worker. */
static void test_property_null(void)
{
	struct user *guest = new_user("guest");
	struct resp *r = api_post(
	    guest, "/users/me/subscriptions/properties",
	    fmt("subscription_data=%s", url_encode("[{\"stream_id\":999999,\"property\":null,\"value\":true}]")));
	EXPECT_ERROR(r, 400, "BAD_REQUEST", "subscription_data[0][\"property\"] is not a string");
	EXPECT_SUCCESS(api_get(guest, "/users/me"));
}

static void test_subscription_data(void)
{
	struct user *u = new_user("member");
	int64_t id = create_channel_with(u, unique_channel_name("shapes"), NULL);
	const char *ok = fmt("{\"stream_id\":%lld,\"property\":\"is_muted\",\"value\":true}", (long long)id);
	const struct shape_case cases[] = {
	    {"{}", "subscription_data is not a list"},
	    {"null", "subscription_data is not a list"},
	    {fmt("[%s,null]", ok), "subscription_data[1] is not a dict"},
	    {"[[1]]", "subscription_data[0] is not a dict"},
	    {"[{\"property\":\"is_muted\",\"value\":true}]", "subscription_data[0][\"stream_id\"] field is missing"},
	    {"[{\"stream_id\":null,\"property\":\"is_muted\",\"value\":true}]",
	     "subscription_data[0][\"stream_id\"] is not an integer"},
	    {"[{\"stream_id\":\"1\",\"property\":\"is_muted\",\"value\":true}]",
	     "subscription_data[0][\"stream_id\"] is not an integer"},
	    {"[{\"stream_id\":1.0,\"property\":\"is_muted\",\"value\":true}]",
	     "subscription_data[0][\"stream_id\"] is not an integer"},
	    {"[{\"stream_id\":true,\"property\":\"is_muted\",\"value\":true}]",
	     "subscription_data[0][\"stream_id\"] is not an integer"},
	    {"[{\"stream_id\":1,\"value\":true}]", "subscription_data[0][\"property\"] field is missing"},
	    {"[{\"stream_id\":1,\"property\":null,\"value\":\"#aabbcc\"}]",
	     "subscription_data[0][\"property\"] is not a string"},
	    {"[{\"stream_id\":1,\"property\":5,\"value\":true}]", "subscription_data[0][\"property\"] is not a string"},
	    {"[{\"stream_id\":1,\"property\":[\"is_muted\"],\"value\":true}]",
	     "subscription_data[0][\"property\"] is not a string"},
	    {"[{\"stream_id\":1,\"property\":{},\"value\":true}]",
	     "subscription_data[0][\"property\"] is not a string"},
	    {"[{\"stream_id\":1,\"property\":\"is_muted\"}]", "subscription_data[0][\"value\"] field is missing"},
	    {"[{\"stream_id\":1,\"property\":\"is_muted\",\"value\":null}]",
	     "subscription_data[0][\"value\"][\"bool\"] is not a boolean"},
	    {"[{\"stream_id\":1,\"property\":\"color\",\"value\":[\"#aabbcc\"]}]",
	     "subscription_data[0][\"value\"][\"bool\"] is not a boolean"},
	    {"[{\"stream_id\":1,\"property\":\"is_muted\",\"value\":\"true\"}]", "is_muted is not a boolean"},
	    {"[{\"stream_id\":1,\"property\":\"color\",\"value\":true}]", "color is not a valid hex color code"},
	    /* Every item is checked before any channel is looked at. */
	    {fmt("[{\"stream_id\":999999,\"property\":\"is_muted\",\"value\":true},%s,{\"stream_id\":1}]", ok),
	     "subscription_data[2][\"property\"] field is missing"},
	    {NULL, NULL},
	};
	refuse_all(u, "POST", "/users/me/subscriptions/properties", NULL, "subscription_data", cases);
	EXPECT_SUCCESS(api_post(u, "/users/me/subscriptions/properties",
	                        fmt("subscription_data=%s", url_encode(fmt("[%s]", ok)))));
}

static void test_subscriptions(void)
{
	struct user *u = new_user("member");
	const struct shape_case cases[] = {
	    {"{\"name\":\"x\"}", "subscriptions is not a list"},
	    {"[\"x\"]", "subscriptions[0] is not a dict"},
	    {"[{}]", "subscriptions[0][\"name\"] field is missing"},
	    {"[{\"name\":null}]", "subscriptions[0][\"name\"] is not a string"},
	    {"[{\"name\":5}]", "subscriptions[0][\"name\"] is not a string"},
	    {"[{\"name\":\"x\",\"description\":5}]", "subscriptions[0][\"description\"] is not a string"},
	    {"[{\"name\":\"x\",\"description\":[\"d\"]}]", "subscriptions[0][\"description\"] is not a string"},
	    {"[{\"name\":\"x\",\"color\":{}}]", "subscriptions[0][\"color\"] is not a string"},
	    {"[{\"name\":\"x\",\"color\":\"red\"}]",
	     "Invalid subscriptions[0]: Value error, add.color is not a valid hex color code"},
	    {"[{\"name\":\"x\"},{\"name\":\"y\",\"color\":true}]", "subscriptions[1][\"color\"] is not a string"},
	    {NULL, NULL},
	};
	refuse_all(u, "POST", "/users/me/subscriptions", NULL, "subscriptions", cases);
	/* null is "not given" for color and description. */
	const char *name = unique_channel_name("shapes");
	EXPECT_SUCCESS(api_post(
	    u, "/users/me/subscriptions",
	    fmt("subscriptions=%s", url_encode(fmt("[{\"name\":\"%s\",\"color\":null,\"description\":null}]", name)))));
}

static void test_principals(void)
{
	struct user *u = new_user("admin");
	const char *subs = fmt("subscriptions=%s&", url_encode(fmt("[{\"name\":\"%s\"}]", unique_channel_name("p"))));
	const struct shape_case cases[] = {
	    {"5", "principals[\"list[str]\"] is not a list"},
	    {"{}", "principals[\"list[str]\"] is not a list"},
	    {"[null]", "principals[\"list[str]\"][0] is not a string"},
	    {"[{}]", "principals[\"list[str]\"][0] is not a string"},
	    {"[1.5]", "principals[\"list[str]\"][0] is not a string"},
	    {"[1,\"a@example.com\"]", "principals[\"list[str]\"][0] is not a string"},
	    {"[\"a@example.com\",1]", "principals[\"list[str]\"][1] is not a string"},
	    {NULL, NULL},
	};
	refuse_all(u, "POST", "/users/me/subscriptions", subs, "principals", cases);
	refuse_all(u, "DELETE", "/users/me/subscriptions", "subscriptions=%5B%22x%22%5D&", "principals", cases);
}

static void test_drafts(void)
{
	struct user *u = new_user("member");
	const struct shape_case cases[] = {
	    {"[{\"type\":null,\"to\":[],\"topic\":\"\",\"content\":\"c\"}]", "Invalid drafts[0][\"type\"]"},
	    {"[{\"type\":\"\",\"to\":null,\"topic\":\"\",\"content\":\"c\"}]", "drafts[0][\"to\"] is not a list"},
	    {"[{\"type\":\"\",\"to\":[\"1\"],\"topic\":\"\",\"content\":\"c\"}]",
	     "drafts[0][\"to\"][0] is not an integer"},
	    {"[{\"type\":\"\",\"to\":[],\"topic\":null,\"content\":\"c\"}]", "drafts[0][\"topic\"] is not a string"},
	    {"[{\"type\":\"\",\"to\":[],\"topic\":\"\",\"content\":[]}]", "drafts[0][\"content\"] is not a string"},
	    {"[{\"type\":\"\",\"to\":[],\"topic\":\"\",\"content\":\"c\",\"timestamp\":\"1\"}]",
	     "drafts[0][\"timestamp\"][\"int\"] is not an integer"},
	    {NULL, NULL},
	};
	refuse_all(u, "POST", "/drafts", NULL, "drafts", cases);
	/* A timestamp of null is "now". */
	EXPECT_SUCCESS(api_post(
	    u, "/drafts",
	    fmt("drafts=%s",
	        url_encode("[{\"type\":\"\",\"to\":[],\"topic\":\"\",\"content\":\"c\",\"timestamp\":null}]"))));
}

/* GET /messages' narrow (the reference's list[NarrowParameter]): its "before" validator's ValueErrors, then the
 * fields' types, then the operand's type for the operator. */
static void test_narrow(void)
{
	struct user *u = new_user("member");
	const struct shape_case cases[] = {
	    {"{}", "narrow is not a list"},
	    {"[null]", "Invalid narrow[0]: Value error, dict or list required"},
	    {"[[\"is\",\"starred\"],5]", "Invalid narrow[1]: Value error, dict or list required"},
	    {"[[\"is\",null]]", "Invalid narrow[0]: Value error, element is not a string pair"},
	    {"[{\"operator\":\"is\",\"operand\":null}]", "Invalid narrow[0]: Value error, operand is missing"},
	    {"[{\"operand\":\"starred\"}]", "Invalid narrow[0]: Value error, operator is missing"},
	    {"[{\"operator\":{},\"operand\":\"starred\"}]", "narrow[0][\"operator\"] is not a string"},
	    {"[{\"operator\":\"is\",\"operand\":\"starred\",\"negated\":null}]",
	     "narrow[0][\"negated\"] is not a boolean"},
	    {"[{\"operator\":\"is\",\"operand\":\"starred\",\"negated\":1}]",
	     "narrow[0][\"negated\"] is not a boolean"},
	    {"[{\"operator\":\"is\",\"operand\":5}]", "operand is not a string"},
	    {"[{\"operator\":\"channel\",\"operand\":[]}]", "operand is not a string or integer"},
	    {"[{\"operator\":\"dm\",\"operand\":[null]}]", "operand is not a string or an integer list"},
	    {NULL, NULL},
	};
	for (const struct shape_case *c = cases; c->json != NULL; c++) {
		struct resp *r = api_get(u, fmt("/messages?anchor=newest&num_before=1&narrow=%s", url_encode(c->json)));
		EXPECT_ERROR(r, 400, "BAD_REQUEST", c->msg);
		EXPECT_SUCCESS(api_get(u, "/users/me"));
	}
}

static void test_profile_data(void)
{
	struct user *u = new_user("member");
	const struct shape_case cases[] = {
	    {"{}", "data is not a list"},
	    {"[null]", "data[0] is not a dict"},
	    {"[{\"id\":\"1\",\"value\":\"x\"}]", "data[0][\"id\"] is not an integer"},
	    {"[{\"id\":1,\"value\":null}]", "data[0][\"value\"][\"str\"] is not a string"},
	    {"[{\"id\":1,\"value\":5}]", "data[0][\"value\"][\"str\"] is not a string"},
	    {"[{\"id\":1,\"value\":[\"x\"]}]", "data[0][\"value\"][\"str\"] is not a string"},
	    {"[{\"id\":1,\"value\":{}}]", "data[0][\"value\"][\"str\"] is not a string"},
	    {NULL, NULL},
	};
	refuse_all(u, "PATCH", "/users/me/profile_data", NULL, "data", cases);
}

void register_shapes_tests(void)
{
	static const struct itest_case cases[] = {
	    {"property_null", test_property_null},
	    {"subscription_data", test_subscription_data},
	    {"subscriptions", test_subscriptions},
	    {"principals", test_principals},
	    {"drafts", test_drafts},
	    {"narrow", test_narrow},
	    {"profile_data", test_profile_data},
	    {NULL, NULL},
	};
	itest_add_suite("shapes", cases);
}
