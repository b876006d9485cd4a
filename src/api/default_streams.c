/* Default channels: the channels new users are subscribed to (GET: the register field realm_default_streams). */
#include "api/api.h"
#include "http/params.h"
#include "http/request.h"
#include "model/channels.h"
#include "model/default_channels.h"

/* POST /api/v1/default_streams */
int default_streams_add(struct request *req)
{
	/* access_stream_by_id: an active channel the administrator can read. */
	struct channel *c = channel_access_by_id(&req->uow, param_int(req, "stream_id"), true);
	if (c == NULL)
		return -1;
	if (c->is_archived)
		return api_error(req, ERR_BAD_REQUEST, "Invalid channel ID");
	if (c->invite_only)
		return api_error(req, ERR_BAD_REQUEST, "Private channels cannot be made default.");
	return default_channel_set(&req->uow, c, true);
}

/* DELETE /api/v1/default_streams */
int default_streams_remove(struct request *req)
{
	/* access_stream_by_id(require_content_access=False): an active channel the administrator can see. */
	struct channel *c = channel_access_by_id(&req->uow, param_int(req, "stream_id"), false);
	if (c == NULL)
		return -1;
	if (c->is_archived)
		return api_error(req, ERR_BAD_REQUEST, "Invalid channel ID");
	return default_channel_set(&req->uow, c, false);
}
