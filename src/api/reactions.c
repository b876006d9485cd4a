/*
 * Emoji reactions: POST and DELETE /messages/{message_id}/reactions. Reference: zerver/views/reactions.py and
 * zerver/actions/reactions.py (model/reactions.h).
 */
#include "api/api.h"
#include "http/params.h"
#include "http/request.h"
#include "model/reactions.h"

static struct reaction_emoji emoji_from_params(struct request *req)
{
	return (struct reaction_emoji){
	    .name = param_str(req, "emoji_name"),
	    .code = param_str(req, "emoji_code"),
	    .type = param_str(req, "reaction_type"),
	};
}

/* POST /api/v1/messages/{message_id}/reactions */
int reactions_add(struct request *req)
{
	struct reaction_emoji e = emoji_from_params(req);
	return reaction_add(&req->uow, param_int(req, "message_id"), &e);
}

/* DELETE /api/v1/messages/{message_id}/reactions */
int reactions_remove(struct request *req)
{
	struct reaction_emoji e = emoji_from_params(req);
	return reaction_remove(&req->uow, param_int(req, "message_id"), &e);
}
