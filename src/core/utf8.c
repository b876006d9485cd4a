/* UTF-8 decoding; see utf8.h. */
#include "core/utf8.h"

#include <utf8proc.h>

size_t utf8_decode(const unsigned char *s, size_t n, uint32_t *cp)
{
	unsigned c = s[0];
	size_t len;
	uint32_t v;
	*cp = 0xfffd;
	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	if (c >= 0xc2 && c <= 0xdf)
		len = 2, v = c & 0x1f;
	else if (c >= 0xe0 && c <= 0xef)
		len = 3, v = c & 0x0f;
	else if (c >= 0xf0 && c <= 0xf4)
		len = 4, v = c & 0x07;
	else
		return 0;
	if (len > n)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		v = (v << 6) | (s[i] & 0x3f);
	}
	if ((len == 3 && v < 0x800) || (len == 4 && (v < 0x10000 || v > 0x10ffff)) || (v >= 0xd800 && v <= 0xdfff))
		return 0;
	*cp = v;
	return len;
}

size_t utf8_length(const char *s)
{
	size_t n = 0;
	for (; *s; s++)
		if (((unsigned char)*s & 0xc0) != 0x80)
			n++;
	return n;
}

bool utf8_is_space(uint32_t c)
{
	return (c >= 0x09 && c <= 0x0d) || (c >= 0x1c && c <= 0x20) || c == 0x85 || c == 0xa0 || c == 0x1680 ||
	       (c >= 0x2000 && c <= 0x200a) || c == 0x2028 || c == 0x2029 || c == 0x202f || c == 0x205f || c == 0x3000;
}

bool utf8_is_printable(uint32_t c)
{
	return !(c < 0x20 || (c >= 0x7f && c < 0xa0) || (c >= 0xd800 && c <= 0xdfff) || (c >= 0xfdd0 && c <= 0xfdef) ||
	         (c & 0xfffe) == 0xfffe || c > 0x10ffff);
}

bool utf8_is_name_char(uint32_t c)
{
	if (!utf8_is_printable(c))
		return false;
	if (c == 0x200c || c == 0x200d) /* ZWNJ, ZWJ */
		return true;
	utf8proc_category_t cat = utf8proc_category((utf8proc_int32_t)c);
	return cat != UTF8PROC_CATEGORY_CF && cat != UTF8PROC_CATEGORY_ZL && cat != UTF8PROC_CATEGORY_ZP &&
	       cat != UTF8PROC_CATEGORY_CO;
}
