/* The FastCGI side of a worker: the only module that includes fcgiapp.h. */
#ifndef CONFAB_FCGI_H
#define CONFAB_FCGI_H

struct request;
struct worker;

/* Initializes libfcgi and returns the listening socket: fd 0 as spawn-fcgi passes it, or a socket opened on
 * spec (":PORT", "HOST:PORT" or a unix socket path) when spec is not empty. Returns -1 on failure. */
int fcgi_listen(const char *spec);
/*
 * Accepts and serves requests on fd until *stop becomes non-zero: each request is parsed into a struct request,
 * given to handle(), and its response written. Transient accept errors (EMFILE, ENOMEM, ...) are retried.
 */
void fcgi_serve(struct worker *w, int fd, volatile int *stop, void (*handle)(struct request *req));

/* How many threads are serving a request right now. */
int fcgi_busy(void);

#endif
