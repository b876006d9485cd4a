// RE2 behind the C interface of re2c.h: compile, group names, search with submatches, error text.
#include "core/re2c.h"

#include <re2/re2.h>

#include <cstring>
#include <new>
#include <string>
#include <vector>

struct re2c {
	re2::RE2 *re;
	std::vector<std::string> names; // index = group number; "" for unnamed groups
};

static void copy_error(const std::string &msg, char *err, size_t errlen)
{
	if (errlen == 0)
		return;
	size_t n = msg.size() < errlen - 1 ? msg.size() : errlen - 1;
	std::memcpy(err, msg.data(), n);
	err[n] = '\0';
}

struct re2c *re2c_compile(const char *pattern, size_t len, char *err, size_t errlen)
{
	try {
		re2::RE2::Options options;
		options.set_log_errors(false);
		re2c *r = new re2c;
		r->re = new re2::RE2(re2::StringPiece(pattern, len), options);
		if (!r->re->ok()) {
			copy_error(r->re->error(), err, errlen);
			delete r->re;
			delete r;
			return nullptr;
		}
		r->names.assign(static_cast<size_t>(r->re->NumberOfCapturingGroups()) + 1, std::string());
		for (const auto &g : r->re->CapturingGroupNames())
			r->names[static_cast<size_t>(g.first)] = g.second;
		return r;
	} catch (const std::bad_alloc &) {
		copy_error("out of memory", err, errlen);
		return nullptr;
	}
}

void re2c_free(struct re2c *r)
{
	if (r == nullptr)
		return;
	delete r->re;
	delete r;
}

int re2c_groups(const struct re2c *r)
{
	return r->re->NumberOfCapturingGroups();
}

const char *re2c_group_name(const struct re2c *r, int i)
{
	if (i < 1 || static_cast<size_t>(i) >= r->names.size() || r->names[static_cast<size_t>(i)].empty())
		return nullptr;
	return r->names[static_cast<size_t>(i)].c_str();
}

int re2c_group_index(const struct re2c *r, const char *name)
{
	for (size_t i = 1; i < r->names.size(); i++)
		if (r->names[i] == name)
			return static_cast<int>(i);
	return -1;
}

bool re2c_search(const struct re2c *r, const char *text, size_t len, size_t start, struct re2c_span *spans, int n)
{
	for (int i = 0; i < n; i++)
		spans[i].begin = spans[i].end = -1;
	if (start > len)
		return false;
	int want = n < re2c_groups(r) + 1 ? n : re2c_groups(r) + 1;
	try {
		std::vector<re2::StringPiece> sub(static_cast<size_t>(want > 0 ? want : 1));
		re2::StringPiece whole(text, len);
		if (!r->re->Match(whole, start, len, re2::RE2::UNANCHORED, sub.data(), want))
			return false;
		for (int i = 0; i < want; i++) {
			if (sub[static_cast<size_t>(i)].data() == nullptr)
				continue;
			spans[i].begin = static_cast<long>(sub[static_cast<size_t>(i)].data() - text);
			spans[i].end = spans[i].begin + static_cast<long>(sub[static_cast<size_t>(i)].size());
		}
		return true;
	} catch (const std::bad_alloc &) {
		return false;
	}
}
