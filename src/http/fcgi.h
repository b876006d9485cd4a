/* The FastCGI side of a worker: the only module that includes fcgiapp.h. */
#ifndef CONFAB_FCGI_H
#define CONFAB_FCGI_H

struct request;
struct worker;

/* Initializes libfcgi and returns the listening socket: fd 0 as spawn-fcgi or systemd pass it, or a socket opened
 * on spec (":PORT", "HOST:PORT" such as "127.0.0.2:9000", or a unix socket path) when spec is not empty. The socket is
 * made non-blocking (see fcgi_serve). Returns -1 on failure. */
int fcgi_listen(const char *spec);
/*
 * Stops this process's threads from taking connections, without closing or shutting down the listening socket,
 * which the other processes of the group (and the one started in this one's place) go on accepting on. When it
 * returns, every connection this process took is counted by fcgi_busy() until its response is written.
 */
void fcgi_stop(void);
/*
 * Accepts and serves requests on fd until fcgi_stop() (or, after a request, *stop non-zero): each request is parsed
 * into a struct request, given to handle(), and its response written. One thread of the process at a time waits for
 * a connection. Transient accept errors (EMFILE, ENOMEM, ...) are retried.
 */
void fcgi_serve(struct worker *w, int fd, volatile int *stop, void (*handle)(struct request *req));

/* How many threads are serving a request right now. */
int fcgi_busy(void);

#endif
