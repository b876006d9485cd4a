/*
 * The one check of every URL the server links to or gives clients to link to: the reference's sanitize_url()
 * (zerver/lib/markdown/__init__.py), used for the links of message content (Markdown links, autolinks, linkifier
 * links) and for topic_links.
 */
#ifndef CONFAB_URL_H
#define CONFAB_URL_H

struct arena;

/*
 * The URL to link to (an arena string), or NULL when it must not be a link. Domain-relative ("/..."), fragment
 * ("#...") and mailto-looking ("a@b") URLs pass (the last with mailto: in front), a URL without a scheme gets
 * http:// when a host name follows, and a scheme must be http, https, ftp, mailto, file, sms, tel or bitcoin
 * (javascript:, data:, vbscript: and the rest are refused), with a host unless it is one of mailto, news, file,
 * bitcoin, sms and tel. Spaces become %20 and the scheme lower case. The decision is made on url as given (writing
 * spaces as %20 changes none of it), so a refused URL costs no memory.
 */
const char *url_sanitize(struct arena *arena, const char *url);

#endif
