/* SMTP submission with libcurl; see smtp.h. */
#include "core/smtp.h"

#include <curl/curl.h>
#include <stdio.h>
#include <string.h>

struct upload {
	const char *p;
	size_t left;
};

static size_t read_message(char *out, size_t size, size_t nmemb, void *userdata)
{
	struct upload *u = userdata;
	size_t n = size * nmemb < u->left ? size * nmemb : u->left;
	memcpy(out, u->p, n);
	u->p += n;
	u->left -= n;
	return n;
}

static curl_usessl use_ssl(const char *tls)
{
	if (tls != NULL && strcmp(tls, "required") == 0)
		return CURLUSESSL_ALL;
	if (tls != NULL && strcmp(tls, "none") == 0)
		return CURLUSESSL_NONE;
	return CURLUSESSL_TRY;
}

int smtp_send(const struct smtp_relay *relay, const char *from, const char *to, const char *message, char *err,
              size_t errlen)
{
	CURL *c = curl_easy_init();
	if (c == NULL) {
		snprintf(err, errlen, "curl_easy_init failed");
		return -1;
	}
	char mail_from[300], rcpt_to[300];
	snprintf(mail_from, sizeof(mail_from), "<%s>", from);
	snprintf(rcpt_to, sizeof(rcpt_to), "<%s>", to);
	struct curl_slist *rcpt = curl_slist_append(NULL, rcpt_to);
	struct upload u = {message, strlen(message)};
	char curl_err[CURL_ERROR_SIZE] = "";
	curl_easy_setopt(c, CURLOPT_URL, relay->url);
	curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "smtp,smtps");
	curl_easy_setopt(c, CURLOPT_USE_SSL, (long)use_ssl(relay->tls));
	if (relay->username != NULL && *relay->username != '\0') {
		curl_easy_setopt(c, CURLOPT_USERNAME, relay->username);
		curl_easy_setopt(c, CURLOPT_PASSWORD, relay->password ? relay->password : "");
	}
	curl_easy_setopt(c, CURLOPT_MAIL_FROM, mail_from);
	curl_easy_setopt(c, CURLOPT_MAIL_RCPT, rcpt);
	curl_easy_setopt(c, CURLOPT_UPLOAD, 1L);
	curl_easy_setopt(c, CURLOPT_READFUNCTION, read_message);
	curl_easy_setopt(c, CURLOPT_READDATA, &u);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, 10L);
	curl_easy_setopt(c, CURLOPT_TIMEOUT, 60L);
	curl_easy_setopt(c, CURLOPT_ERRORBUFFER, curl_err);
	CURLcode rc = curl_easy_perform(c);
	if (rc != CURLE_OK)
		snprintf(err, errlen, "%s", *curl_err ? curl_err : curl_easy_strerror(rc));
	curl_slist_free_all(rcpt);
	curl_easy_cleanup(c);
	return rc == CURLE_OK ? 0 : -1;
}
