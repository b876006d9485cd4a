/* The API handlers, one file per resource under src/api; each is named <resource>_<verb>. */
#ifndef CONFAB_API_H
#define CONFAB_API_H

struct request;

/* server.c */
int server_settings_get(struct request *req);
/* api_keys.c */
int api_key_fetch(struct request *req);
/* join.c */
int join_get(struct request *req);
int join_post(struct request *req);
/* users.c */
int users_me_get(struct request *req);
int users_list(struct request *req);
int users_get_by_id(struct request *req);
int users_get_by_email(struct request *req);
int users_create(struct request *req);
int users_update(struct request *req);
int users_update_by_email(struct request *req);
int users_deactivate(struct request *req);
int users_deactivate_own(struct request *req);
int users_reactivate(struct request *req);
int linkifiers_list(struct request *req);
int linkifiers_create(struct request *req);
int linkifiers_update(struct request *req);
int linkifiers_delete(struct request *req);
int linkifiers_order(struct request *req);
int profile_fields_list(struct request *req);
int profile_fields_create(struct request *req);
int profile_data_update(struct request *req);
/* settings.c */
int settings_update(struct request *req);
/* user_status.c */
int user_status_update_own(struct request *req);
int user_status_update_for_user(struct request *req);
int user_status_get(struct request *req);
/* presence.c */
int presence_update(struct request *req);
int presence_realm_get(struct request *req);
int presence_user_get(struct request *req);
/* push_tokens.c */
int apns_token_add(struct request *req);
int apns_token_remove(struct request *req);

/* invites.c */
int invites_create(struct request *req);
int invites_list(struct request *req);
int invites_revoke(struct request *req);
int invites_resend(struct request *req);
int invites_multiuse_create(struct request *req);
int invites_multiuse_revoke(struct request *req);

/* channels.c */
int channels_list(struct request *req);
int channels_get(struct request *req);
int channels_get_id(struct request *req);
int channels_members(struct request *req);
int channels_topics(struct request *req);
int channels_archive(struct request *req);
/* default_streams.c */
int default_streams_add(struct request *req);
int default_streams_remove(struct request *req);
/* subscriptions.c */
int subscriptions_list(struct request *req);
int subscriptions_add(struct request *req);
int subscriptions_remove(struct request *req);
int subscriptions_update_properties(struct request *req);
/* drafts.c */
int drafts_list(struct request *req);
int drafts_create(struct request *req);
int drafts_edit(struct request *req);
int drafts_delete(struct request *req);
/* saved_snippets.c */
int realm_emoji_list(struct request *req);
int realm_emoji_upload(struct request *req);
int realm_emoji_delete(struct request *req);
int realm_emoji_upload_nested(struct request *req);
int realm_emoji_delete_nested(struct request *req);
int realm_emoji_serve(struct request *req);
int saved_snippets_list(struct request *req);
int saved_snippets_create(struct request *req);
int saved_snippets_edit(struct request *req);
int saved_snippets_delete(struct request *req);
/* navigation_views.c */
int navigation_views_list(struct request *req);
int navigation_views_create(struct request *req);
int navigation_views_update(struct request *req);
int navigation_views_delete(struct request *req);
/* channel_update.c */
int channel_update(struct request *req);

/* channel_folders.c */
int channel_folders_create(struct request *req);
int channel_folders_list(struct request *req);
int channel_folders_update(struct request *req);
int channel_folders_reorder(struct request *req);

/* user_groups.c */
int user_groups_create(struct request *req);
int user_groups_list(struct request *req);
int user_groups_update(struct request *req);
int user_groups_deactivate(struct request *req);
int user_group_members_update(struct request *req);
int user_group_subgroups_update(struct request *req);
int user_group_members_list(struct request *req);
int user_group_member_get(struct request *req);
int user_group_subgroups_list(struct request *req);

/* attachments.c */
int attachments_list(struct request *req);
int attachments_delete(struct request *req);
/* uploads.c */
int uploads_create(struct request *req);
int uploads_temporary_url(struct request *req);
/* GET /user_uploads/... (outside /api/v1): the uploaded files themselves, sent by the front end. */
int uploads_serve(struct request *req);
int uploads_serve_temporary(struct request *req);
/* Lets the front end send the file path_id of upload_dir: X-Accel-Redirect (nginx) or X-Sendfile (Apache). */
void uploads_send_file(struct request *req, const char *path_id);

/* messages.c */
int messages_send(struct request *req);
int messages_list(struct request *req);
int messages_get(struct request *req);
int messages_delete(struct request *req);
int messages_flags_update(struct request *req);
/* mark_read.c */
int mark_all_as_read(struct request *req);
int mark_stream_as_read(struct request *req);
int mark_topic_as_read(struct request *req);
/* user_topics.c */
int user_topics_update(struct request *req);
int user_topics_mute_legacy(struct request *req);
/* message_edit.c */
int messages_update(struct request *req);
/* message_report.c */
int message_report_create(struct request *req);
/* reactions.c */
int reactions_add(struct request *req);
int reactions_remove(struct request *req);
/* scheduled_messages.c */
int scheduled_messages_list(struct request *req);
int scheduled_messages_create(struct request *req);
int scheduled_messages_update(struct request *req);
int scheduled_messages_delete(struct request *req);

/* typing.c */
int typing_send(struct request *req);
int typing_edit_send(struct request *req);
/* realm.c */
int realm_update(struct request *req);
/* realm_domains.c */
int realm_domains_list(struct request *req);
int realm_domains_create(struct request *req);
int realm_domains_update(struct request *req);
int realm_domains_delete(struct request *req);

/* events.c */
int events_get(struct request *req);
int events_delete(struct request *req);
/* register.c */
int events_register(struct request *req);

/* GET /health (outside /api/v1): 200 or 503, with "postgres" and "redis" each "ok" or "down". */
int health_get(struct request *req);
/* GET /bench/noop (outside /api/v1): an empty success, the FastCGI ceiling of scripts/bench. */
int bench_noop(struct request *req);
/* GET /metrics (prometheus.c; outside /api/v1, internal address only): the Prometheus text format. */
int prometheus_get(struct request *req);

#endif
