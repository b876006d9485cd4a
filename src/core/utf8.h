/* UTF-8: decoding one character and counting characters (code points). */
#ifndef CONFAB_UTF8_H
#define CONFAB_UTF8_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Decodes the character at s (n > 0 bytes available) into *cp. Returns the bytes it takes, or 0 if they are not
 * valid UTF-8 (overlong forms, surrogates and values past U+10FFFF included); *cp is then U+FFFD.
 */
size_t utf8_decode(const unsigned char *s, size_t n, uint32_t *cp);
/* Number of code points in the NUL-terminated UTF-8 string s. */
size_t utf8_length(const char *s);

/* Python's str.isspace() for code point c: what the reference's strip() removes. */
bool utf8_is_space(uint32_t c);
/* The reference's is_character_printable(): false for categories Cc and Cs and for the 66 noncharacters. */
bool utf8_is_printable(uint32_t c);
/*
 * Whether c may appear in a person's name: printable as above, and none of what renders as nothing or reorders or
 * breaks the text around it (an impersonator's tools): format characters (Unicode category Cf: bidirectional
 * overrides, zero-width space, the byte order mark, soft hyphen, ...) except the zero-width joiner and non-joiner
 * that Persian, Indic scripts and emoji sequences need, line and paragraph separators (Zl, Zp) and private-use
 * characters (Co). Categories come from utf8proc.
 */
bool utf8_is_name_char(uint32_t c);

#endif
