/* RFC 6570 URI templates (core/uritemplate.h), checked against the RFC's own examples (sections 1.2 and 3.2). */
#include <stdio.h>
#include <string.h>

#include "core/buf.h"
#include "core/uritemplate.h"
#include "unit.h"

/* The RFC's variables (section 1.2 and 3.2). */
static const char *const count[] = {"one", "two", "three"};
static const char *const dom[] = {"example", "com"};
static const char *const list[] = {"red", "green", "blue"};
static const char *const keys[] = {"semi", ";", "dot", ".", "comma", ","};

static const struct {
	const char *name;
	struct ut_value v;
} vars[] = {
    {"count", {UT_LIST, NULL, count, 3}},       {"dom", {UT_LIST, NULL, dom, 2}},
    {"dub", {UT_STRING, "me/too", NULL, 0}},    {"hello", {UT_STRING, "Hello World!", NULL, 0}},
    {"half", {UT_STRING, "50%", NULL, 0}},      {"var", {UT_STRING, "value", NULL, 0}},
    {"who", {UT_STRING, "fred", NULL, 0}},      {"base", {UT_STRING, "http://example.com/home/", NULL, 0}},
    {"path", {UT_STRING, "/foo/bar", NULL, 0}}, {"list", {UT_LIST, NULL, list, 3}},
    {"keys", {UT_MAP, NULL, keys, 6}},          {"v", {UT_STRING, "6", NULL, 0}},
    {"x", {UT_STRING, "1024", NULL, 0}},        {"y", {UT_STRING, "768", NULL, 0}},
    {"empty", {UT_STRING, "", NULL, 0}},        {"empty_keys", {UT_MAP, NULL, NULL, 0}},
    {"undef", {UT_UNDEF, NULL, NULL, 0}},
};

static void lookup(void *ctx, const char *name, size_t len, struct ut_value *out)
{
	(void)ctx;
	for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++)
		if (strlen(vars[i].name) == len && memcmp(vars[i].name, name, len) == 0)
			*out = vars[i].v;
}

struct example {
	const char *tmpl, *want;
};

static void check(const struct example *ex)
{
	for (; ex->tmpl != NULL; ex++) {
		struct buf b;
		buf_init(&b, 4096);
		int rc = uritemplate_expand(ex->tmpl, lookup, NULL, &b);
		if (rc != 0 || strcmp(buf_str(&b), ex->want) != 0)
			fprintf(stderr, "\n%s: got %s, want %s\n", ex->tmpl, rc == 0 ? buf_str(&b) : "(error)",
			        ex->want);
		CU_ASSERT_EQUAL(rc, 0);
		CU_ASSERT_STRING_EQUAL(buf_str(&b), ex->want);
		buf_release(&b);
	}
}

/* Section 1.2, levels 1 to 4. */
static void test_uritemplate_levels(void)
{
	static const struct example ex[] = {
	    {"{var}", "value"},
	    {"{hello}", "Hello%20World%21"},
	    {"{+var}", "value"},
	    {"{+hello}", "Hello%20World!"},
	    {"{+path}/here", "/foo/bar/here"},
	    {"here?ref={+path}", "here?ref=/foo/bar"},
	    {"X{#var}", "X#value"},
	    {"X{#hello}", "X#Hello%20World!"},
	    {"map?{x,y}", "map?1024,768"},
	    {"{x,hello,y}", "1024,Hello%20World%21,768"},
	    {"{+x,hello,y}", "1024,Hello%20World!,768"},
	    {"{+path,x}/here", "/foo/bar,1024/here"},
	    {"{#x,hello,y}", "#1024,Hello%20World!,768"},
	    {"{#path,x}/here", "#/foo/bar,1024/here"},
	    {"X{.var}", "X.value"},
	    {"X{.x,y}", "X.1024.768"},
	    {"{/var}", "/value"},
	    {"{/var,x}/here", "/value/1024/here"},
	    {"{;x,y}", ";x=1024;y=768"},
	    {"{;x,y,empty}", ";x=1024;y=768;empty"},
	    {"{?x,y}", "?x=1024&y=768"},
	    {"{?x,y,empty}", "?x=1024&y=768&empty="},
	    {"?fixed=yes{&x}", "?fixed=yes&x=1024"},
	    {"{&x,y,empty}", "&x=1024&y=768&empty="},
	    {"{var:3}", "val"},
	    {"{var:30}", "value"},
	    {"{list}", "red,green,blue"},
	    {"{list*}", "red,green,blue"},
	    {"{keys}", "semi,%3B,dot,.,comma,%2C"},
	    {"{keys*}", "semi=%3B,dot=.,comma=%2C"},
	    {"{+path:6}/here", "/foo/b/here"},
	    {"{+list}", "red,green,blue"},
	    {"{+list*}", "red,green,blue"},
	    {"{+keys}", "semi,;,dot,.,comma,,"},
	    {"{+keys*}", "semi=;,dot=.,comma=,"},
	    {"{#path:6}/here", "#/foo/b/here"},
	    {"{#list}", "#red,green,blue"},
	    {"{#list*}", "#red,green,blue"},
	    {"{#keys}", "#semi,;,dot,.,comma,,"},
	    {"{#keys*}", "#semi=;,dot=.,comma=,"},
	    {"X{.var:3}", "X.val"},
	    {"X{.list}", "X.red,green,blue"},
	    {"X{.list*}", "X.red.green.blue"},
	    {"X{.keys}", "X.semi,%3B,dot,.,comma,%2C"},
	    {"X{.keys*}", "X.semi=%3B.dot=..comma=%2C"},
	    {"{/var:1,var}", "/v/value"},
	    {"{/list}", "/red,green,blue"},
	    {"{/list*}", "/red/green/blue"},
	    {"{/list*,path:4}", "/red/green/blue/%2Ffoo"},
	    {"{/keys}", "/semi,%3B,dot,.,comma,%2C"},
	    {"{/keys*}", "/semi=%3B/dot=./comma=%2C"},
	    {"{;hello:5}", ";hello=Hello"},
	    {"{;list}", ";list=red,green,blue"},
	    {"{;list*}", ";list=red;list=green;list=blue"},
	    {"{;keys}", ";keys=semi,%3B,dot,.,comma,%2C"},
	    {"{;keys*}", ";semi=%3B;dot=.;comma=%2C"},
	    {"{?var:3}", "?var=val"},
	    {"{?list}", "?list=red,green,blue"},
	    {"{?list*}", "?list=red&list=green&list=blue"},
	    {"{?keys}", "?keys=semi,%3B,dot,.,comma,%2C"},
	    {"{?keys*}", "?semi=%3B&dot=.&comma=%2C"},
	    {"{&var:3}", "&var=val"},
	    {"{&list}", "&list=red,green,blue"},
	    {"{&list*}", "&list=red&list=green&list=blue"},
	    {"{&keys}", "&keys=semi,%3B,dot,.,comma,%2C"},
	    {"{&keys*}", "&semi=%3B&dot=.&comma=%2C"},
	    {NULL, NULL},
	};
	check(ex);
}

/* Section 3.2: every operator with the remaining variables (count, dom, dub, half, who, base, v, empty_keys, undef). */
static void test_uritemplate_operators(void)
{
	static const struct example ex[] = {
	    /* 3.2.1 variable expansion */
	    {"{count}", "one,two,three"},
	    {"{count*}", "one,two,three"},
	    {"{/count}", "/one,two,three"},
	    {"{/count*}", "/one/two/three"},
	    {"{;count}", ";count=one,two,three"},
	    {"{;count*}", ";count=one;count=two;count=three"},
	    {"{?count}", "?count=one,two,three"},
	    {"{?count*}", "?count=one&count=two&count=three"},
	    {"{&count*}", "&count=one&count=two&count=three"},
	    /* 3.2.2 simple string expansion */
	    {"{half}", "50%25"},
	    {"O{empty}X", "OX"},
	    {"O{undef}X", "OX"},
	    {"{x,y}", "1024,768"},
	    {"?{x,empty}", "?1024,"},
	    {"?{x,undef}", "?1024"},
	    {"?{undef,y}", "?768"},
	    /* 3.2.3 reserved expansion */
	    {"{+half}", "50%25"},
	    {"{base}index", "http%3A%2F%2Fexample.com%2Fhome%2Findex"},
	    {"{+base}index", "http://example.com/home/index"},
	    {"O{+empty}X", "OX"},
	    {"O{+undef}X", "OX"},
	    {"up{+path}{var}/here", "up/foo/barvalue/here"},
	    /* 3.2.4 fragment expansion */
	    {"{#half}", "#50%25"},
	    {"foo{#empty}", "foo#"},
	    {"foo{#undef}", "foo"},
	    /* 3.2.5 label expansion with dot-prefix */
	    {"{.who}", ".fred"},
	    {"{.who,who}", ".fred.fred"},
	    {"{.half,who}", ".50%25.fred"},
	    {"www{.dom*}", "www.example.com"},
	    {"X{.empty}", "X."},
	    {"X{.undef}", "X"},
	    {"X{.empty_keys}", "X"},
	    {"X{.empty_keys*}", "X"},
	    /* 3.2.6 path segment expansion */
	    {"{/who}", "/fred"},
	    {"{/who,who}", "/fred/fred"},
	    {"{/half,who}", "/50%25/fred"},
	    {"{/who,dub}", "/fred/me%2Ftoo"},
	    {"{/var,empty}", "/value/"},
	    {"{/var,undef}", "/value"},
	    /* 3.2.7 path-style parameter expansion */
	    {"{;who}", ";who=fred"},
	    {"{;half}", ";half=50%25"},
	    {"{;empty}", ";empty"},
	    {"{;v,empty,who}", ";v=6;empty;who=fred"},
	    {"{;v,bar,who}", ";v=6;who=fred"},
	    {"{;x,y,undef}", ";x=1024;y=768"},
	    /* 3.2.8 form-style query expansion */
	    {"{?who}", "?who=fred"},
	    {"{?half}", "?half=50%25"},
	    {"{?x,y,undef}", "?x=1024&y=768"},
	    /* 3.2.9 form-style query continuation */
	    {"{&who}", "&who=fred"},
	    {"{&half}", "&half=50%25"},
	    {NULL, NULL},
	};
	check(ex);
}

static void test_uritemplate_validation(void)
{
	static const char *const valid[] = {"https://example.com/{id}", "{a.b,c_d:12,e*}", "%41{x}", "", "plain",
	                                    "https://x.com/ü/{id}",     "{%41b}",          NULL};
	static const char *const invalid[] = {"{",          "}",       "{}",    "{id",    "https://x.com/{id}}",
	                                      "{{id}}",     "{a b}",   "{=id}", "{!id}",  "{id:0}",
	                                      "{id:10000}", "{id*:3}", "{.}",   "{a..b}", "a b{x}",
	                                      "50%",        "%4g",     "{x}|",  "<{x}>",  "{a,}",
	                                      "{,a}",       "{+}",     NULL};
	for (const char *const *t = valid; *t; t++) {
		if (!uritemplate_is_valid(*t))
			fprintf(stderr, "\nrejected %s\n", *t);
		CU_ASSERT_TRUE(uritemplate_is_valid(*t));
	}
	for (const char *const *t = invalid; *t; t++) {
		if (uritemplate_is_valid(*t))
			fprintf(stderr, "\naccepted %s\n", *t);
		CU_ASSERT_FALSE(uritemplate_is_valid(*t));
	}
}

static void collect(void *ctx, const char *name, size_t len)
{
	struct buf *b = ctx;
	buf_add(b, name, len);
	buf_adds(b, " ");
}

static void test_uritemplate_variables(void)
{
	struct buf b;
	buf_init(&b, 1024);
	CU_ASSERT_EQUAL(uritemplate_variables("https://x/{id}/{+path:3}{?q,page*}{id}", collect, &b), 0);
	CU_ASSERT_STRING_EQUAL(buf_str(&b), "id path q page id ");
	CU_ASSERT_EQUAL(uritemplate_variables("https://x/{id", collect, &b), -1);
	buf_release(&b);
}

/* Non-ASCII literals and values are UTF-8, pct-encoded; a prefix counts code points. */
static void test_uritemplate_unicode(void)
{
	static const struct example ex[] = {
	    {"https://x.com/ü{?who}", "https://x.com/%C3%BC?who=fred"},
	    {NULL, NULL},
	};
	check(ex);
}

int main(void)
{
	static const struct unit_test tests[] = {
	    {"test_uritemplate_levels", test_uritemplate_levels},
	    {"test_uritemplate_operators", test_uritemplate_operators},
	    {"test_uritemplate_validation", test_uritemplate_validation},
	    {"test_uritemplate_variables", test_uritemplate_variables},
	    {"test_uritemplate_unicode", test_uritemplate_unicode},
	    {NULL, NULL},
	};
	return unit_run("uritemplate", tests);
}
