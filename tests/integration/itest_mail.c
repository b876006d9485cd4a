/* Reading the mails of the SMTP sink (scripts/smtp-sink) in CONFAB_MAIL_DIR; see itest.h. */
#include <dirent.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "itest.h"

static char *read_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (f == NULL)
		return NULL;
	fseek(f, 0, SEEK_END);
	long size = ftell(f);
	rewind(f);
	char *s = keep(calloc(1, size > 0 ? (size_t)size + 1 : 1));
	size_t n = size > 0 ? fread(s, 1, (size_t)size, f) : 0;
	s[n] = '\0';
	fclose(f);
	return s;
}

/* The newest mail in dir with "X-Envelope-To: to" in its first lines, or NULL. Names sort by arrival time. */
static char *newest_mail_for(const char *dir, const char *to)
{
	struct dirent **names;
	int n = scandir(dir, &names, NULL, alphasort);
	char *found = NULL;
	for (int i = n - 1; i >= 0; i--) {
		const char *name = names[i]->d_name;
		size_t len = strlen(name);
		if (found == NULL && name[0] != '.' && len > 4 && strcmp(name + len - 4, ".eml") == 0) {
			char *mail = read_file(fmt("%s/%s", dir, name));
			if (mail != NULL && strstr(mail, fmt("X-Envelope-To: %s\r\n", to)) != NULL)
				found = mail;
		}
		free(names[i]);
	}
	free(names);
	return found;
}

char *wait_for_mail(const char *to, int secs)
{
	const char *dir = getenv("CONFAB_MAIL_DIR");
	REQUIRE(dir != NULL && *dir, "CONFAB_MAIL_DIR is not set");
	for (int i = 0; i < secs * 10; i++) {
		char *mail = newest_mail_for(dir, to);
		if (mail != NULL)
			return mail;
		nanosleep(&(struct timespec){0, 100000000L}, NULL);
	}
	return NULL;
}

char *mail_header(const char *mail, const char *name)
{
	size_t n = strlen(name);
	const char *end = strstr(mail, "\r\n\r\n");
	for (const char *line = mail; line != NULL && line < end; line = strstr(line, "\r\n") + 2) {
		if (strncasecmp(line, name, n) != 0 || line[n] != ':')
			continue;
		const char *v = line + n + 1 + strspn(line + n + 1, " ");
		char *out = fmt("%s", "");
		for (;;) { /* unfold: continuation lines start with white space */
			size_t len = strcspn(v, "\r");
			out = fmt("%s%.*s", out, (int)len, v);
			v += len + 2;
			if (*v != ' ' && *v != '\t')
				return out;
		}
	}
	return NULL;
}

char *mail_part(const char *mail, const char *type)
{
	const char *p = strstr(mail, fmt("Content-Type: %s;", type));
	if (p == NULL || strstr(p, "Content-Transfer-Encoding: base64\r\n") == NULL)
		return NULL;
	const char *body = strstr(p, "\r\n\r\n");
	const char *end = body ? strstr(body + 4, "\r\n--") : NULL;
	if (end == NULL)
		return NULL;
	body += 4;
	size_t cap = (size_t)(end - body), len;
	char *out = keep(calloc(1, cap + 1));
	if (sodium_base642bin((unsigned char *)out, cap, body, cap, "\r\n", &len, NULL, sodium_base64_VARIANT_ORIGINAL) !=
	    0)
		return NULL;
	out[len] = '\0';
	return out;
}
