/*
 * PostgreSQL snapshot arithmetic; see snapshot.h. The parser is strict because a lenient one (strtoull) read
 * "-1" or an overflowing xmin as 2^64 - 1 and stopped at garbage in the xip list, each of which made an event of
 * an in-progress transaction count as visible, and so skipped.
 */
#include "events/snapshot.h"

#include <stddef.h>

/* Reads the decimal number at *s (one digit at least, no sign or space, at most UINT64_MAX); moves *s past it. */
static bool read_u64(const char **s, uint64_t *out)
{
	const char *p = *s;
	uint64_t v = 0;
	if (*p < '0' || *p > '9')
		return false;
	for (; *p >= '0' && *p <= '9'; p++) {
		unsigned d = (unsigned)(*p - '0');
		if (v > (UINT64_MAX - d) / 10)
			return false;
		v = v * 10 + d;
	}
	*s = p;
	*out = v;
	return true;
}

bool snapshot_txid_visible(const char *snapshot, uint64_t txid)
{
	const char *p = snapshot;
	uint64_t xmin, xmax, x;
	if (p == NULL || txid == 0 || !read_u64(&p, &xmin) || *p++ != ':' || !read_u64(&p, &xmax) || *p++ != ':' ||
	    xmin > xmax)
		return false;
	/* The whole xip list is read even when txid < xmin decides: malformed text is refused as a whole. */
	bool in_progress = false;
	while (*p != '\0') {
		if (!read_u64(&p, &x))
			return false;
		in_progress = in_progress || x == txid;
		if (*p == ',' && p[1] == '\0')
			return false;
		if (*p == ',')
			p++;
		else if (*p != '\0')
			return false;
	}
	return txid < xmin || (txid < xmax && !in_progress);
}
