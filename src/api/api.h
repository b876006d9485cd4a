/* The API handlers, one file per resource under src/api; each is named <resource>_<verb>. */
#ifndef CONFAB_API_H
#define CONFAB_API_H

struct request;

/* server.c */
int server_settings_get(struct request *req);
/* api_keys.c */
int api_key_fetch(struct request *req);
/* users.c */
int users_me_get(struct request *req);
int users_list(struct request *req);
int users_get_by_id(struct request *req);
int users_get_by_email(struct request *req);
int users_create(struct request *req);

/* GET /health (outside /api/v1): PostgreSQL and Redis answer. */
int health_get(struct request *req);

#endif
