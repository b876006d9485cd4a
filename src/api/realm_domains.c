/*
 * Allowed e-mail domains: the list, and (owners only) adding, changing and removing one.
 * Reference: zerver/views/realm_domains.py, zerver/lib/domains.py, zerver/actions/realm_domains.py.
 */
#include <json-c/json.h>

#include "api/api.h"
#include "http/params.h"
#include "http/request.h"
#include "model/realm.h"
#include "model/realm_domains.h"

/* GET /api/v1/realm/domains */
int realm_domains_list(struct request *req)
{
	json_object *list = realm_domains_json(&req->uow, req->realm->id);
	if (list == NULL)
		return -1;
	json_object_object_add(request_result(req), "domains", json_object_get(list));
	return 0;
}

/* POST /api/v1/realm/domains */
int realm_domains_create(struct request *req)
{
	const char *domain = realm_domain_normalize(&req->uow, param_str(req, "domain"));
	const char *reason = realm_domain_invalid_reason(domain);
	if (reason != NULL)
		return api_error(req, ERR_BAD_REQUEST, "Invalid domain: %s", reason);
	int64_t id = realm_domain_add(&req->uow, domain, param_bool(req, "allow_subdomains"));
	if (id == 0)
		return -1;
	json_object *pair = json_object_new_array();
	json_object_array_add(pair, json_object_new_int64(id));
	json_object_array_add(pair, json_object_new_string(domain));
	json_object_object_add(request_result(req), "new_domain", pair);
	return 0;
}

/* PATCH /api/v1/realm/domains/{domain} (the path is compared as sent, not lowercased, as the reference) */
int realm_domains_update(struct request *req)
{
	return realm_domain_change(&req->uow, param_str(req, "domain"), param_bool(req, "allow_subdomains"));
}

/* DELETE /api/v1/realm/domains/{domain} */
int realm_domains_delete(struct request *req)
{
	return realm_domain_remove(&req->uow, param_str(req, "domain"));
}
