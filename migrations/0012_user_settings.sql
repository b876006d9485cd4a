-- Personal settings of each user (the reference's UserBaseSettings at feature level 496), changed with
-- PATCH /settings and shown in the user_settings object of POST /register. One typed column per setting, named as
-- the API names it, with the reference's default; the allowed values are CHECK constraints. The settings the rest
-- of the server read earlier (send_private_typing_notifications, send_stream_typing_notifications,
-- receives_typing_notifications: 0007; email_address_visibility, timezone: 0001) stay where they are.
-- src/model/user_settings.h lists the same settings (name, type, values, default) for the code.
ALTER TABLE users
    ADD COLUMN allow_private_data_export boolean NOT NULL DEFAULT false,
    -- 1 participation, 2 sending, 3 starting the topic, 4 never.
    ADD COLUMN automatically_follow_topics_policy smallint NOT NULL DEFAULT 3
        CHECK (automatically_follow_topics_policy BETWEEN 1 AND 4),
    ADD COLUMN automatically_follow_topics_where_mentioned boolean NOT NULL DEFAULT true,
    ADD COLUMN automatically_unmute_topics_in_muted_streams_policy smallint NOT NULL DEFAULT 2
        CHECK (automatically_unmute_topics_in_muted_streams_policy BETWEEN 1 AND 4),
    -- 1 automatic, 2 dark, 3 light.
    ADD COLUMN color_scheme smallint NOT NULL DEFAULT 1 CHECK (color_scheme BETWEEN 1 AND 3),
    -- A language code of the reference's translations (user_settings.c has the list).
    ADD COLUMN default_language text NOT NULL DEFAULT 'en' CHECK (length(default_language) BETWEEN 1 AND 50),
    -- 1 automatic, 2 always, 3 never.
    ADD COLUMN demote_inactive_streams smallint NOT NULL DEFAULT 1 CHECK (demote_inactive_streams BETWEEN 1 AND 3),
    -- 1 all unread messages, 2 DMs, mentions and followed topics, 3 DMs and mentions, 4 none.
    ADD COLUMN desktop_icon_count_display smallint NOT NULL DEFAULT 1
        CHECK (desktop_icon_count_display BETWEEN 1 AND 4),
    ADD COLUMN display_emoji_reaction_users boolean NOT NULL DEFAULT true,
    -- Seconds, at most a week.
    ADD COLUMN email_notifications_batching_period_seconds integer NOT NULL DEFAULT 120
        CHECK (email_notifications_batching_period_seconds BETWEEN 1 AND 604800),
    ADD COLUMN emojiset text NOT NULL DEFAULT 'google'
        CHECK (emojiset IN ('google', 'google-blob', 'twitter', 'text')),
    ADD COLUMN enable_desktop_notifications boolean NOT NULL DEFAULT true,
    ADD COLUMN enable_digest_emails boolean NOT NULL DEFAULT true,
    ADD COLUMN enable_drafts_synchronization boolean NOT NULL DEFAULT true,
    ADD COLUMN enable_followed_topic_audible_notifications boolean NOT NULL DEFAULT true,
    ADD COLUMN enable_followed_topic_desktop_notifications boolean NOT NULL DEFAULT true,
    ADD COLUMN enable_followed_topic_email_notifications boolean NOT NULL DEFAULT true,
    ADD COLUMN enable_followed_topic_push_notifications boolean NOT NULL DEFAULT true,
    ADD COLUMN enable_followed_topic_wildcard_mentions_notify boolean NOT NULL DEFAULT true,
    ADD COLUMN enable_login_emails boolean NOT NULL DEFAULT true,
    ADD COLUMN enable_marketing_emails boolean NOT NULL DEFAULT true,
    ADD COLUMN enable_offline_email_notifications boolean NOT NULL DEFAULT true,
    ADD COLUMN enable_offline_push_notifications boolean NOT NULL DEFAULT true,
    ADD COLUMN enable_online_push_notifications boolean NOT NULL DEFAULT true,
    ADD COLUMN enable_sounds boolean NOT NULL DEFAULT true,
    -- The user-level defaults of a subscription's null notification settings.
    ADD COLUMN enable_stream_audible_notifications boolean NOT NULL DEFAULT false,
    ADD COLUMN enable_stream_desktop_notifications boolean NOT NULL DEFAULT false,
    ADD COLUMN enable_stream_email_notifications boolean NOT NULL DEFAULT false,
    ADD COLUMN enable_stream_push_notifications boolean NOT NULL DEFAULT false,
    ADD COLUMN enter_sends boolean NOT NULL DEFAULT false,
    ADD COLUMN fluid_layout_width boolean NOT NULL DEFAULT false,
    ADD COLUMN high_contrast_mode boolean NOT NULL DEFAULT false,
    ADD COLUMN hide_ai_features boolean NOT NULL DEFAULT false,
    ADD COLUMN left_side_userlist boolean NOT NULL DEFAULT false,
    ADD COLUMN message_content_in_email_notifications boolean NOT NULL DEFAULT true,
    -- One of the reference's sounds (user_settings.c has the list) or 'none'.
    ADD COLUMN notification_sound text NOT NULL DEFAULT 'zulip' CHECK (length(notification_sound) BETWEEN 1 AND 20),
    ADD COLUMN pm_content_in_desktop_notifications boolean NOT NULL DEFAULT true,
    -- 1 automatic, 2 always, 3 never.
    ADD COLUMN realm_name_in_email_notifications_policy smallint NOT NULL DEFAULT 1
        CHECK (realm_name_in_email_notifications_policy BETWEEN 1 AND 3),
    ADD COLUMN send_read_receipts boolean NOT NULL DEFAULT true,
    ADD COLUMN starred_message_counts boolean NOT NULL DEFAULT true,
    ADD COLUMN translate_emoticons boolean NOT NULL DEFAULT false,
    ADD COLUMN twenty_four_hour_time boolean NOT NULL DEFAULT false,
    -- 1 compact, 2 with status, 3 with avatar and status.
    ADD COLUMN user_list_style smallint NOT NULL DEFAULT 3 CHECK (user_list_style BETWEEN 1 AND 3),
    ADD COLUMN web_animate_image_previews text NOT NULL DEFAULT 'on_hover'
        CHECK (web_animate_image_previews IN ('always', 'on_hover', 'never')),
    -- 1 top topic in the channel, 2 channel feed.
    ADD COLUMN web_channel_default_view smallint NOT NULL DEFAULT 1 CHECK (web_channel_default_view BETWEEN 1 AND 2),
    ADD COLUMN web_escape_navigates_to_home_view boolean NOT NULL DEFAULT true,
    ADD COLUMN web_font_size_px smallint NOT NULL DEFAULT 16 CHECK (web_font_size_px >= 0),
    ADD COLUMN web_home_view text NOT NULL DEFAULT 'inbox'
        CHECK (web_home_view IN ('recent_topics', 'inbox', 'all_messages')),
    ADD COLUMN web_line_height_percent smallint NOT NULL DEFAULT 140 CHECK (web_line_height_percent >= 0),
    -- 1 always, 2 only in conversation views, 3 never.
    ADD COLUMN web_mark_read_on_scroll_policy smallint NOT NULL DEFAULT 1
        CHECK (web_mark_read_on_scroll_policy BETWEEN 1 AND 3),
    ADD COLUMN web_navigate_to_sent_message boolean NOT NULL DEFAULT true,
    -- 1 all channels, 2 unmuted channels and topics, 3 no channels.
    ADD COLUMN web_stream_unreads_count_display_policy smallint NOT NULL DEFAULT 2
        CHECK (web_stream_unreads_count_display_policy BETWEEN 1 AND 3),
    ADD COLUMN web_suggest_update_timezone boolean NOT NULL DEFAULT true,
    ADD COLUMN wildcard_mentions_notify boolean NOT NULL DEFAULT true;

-- presence_enabled came with user statuses (0010_user_status_apns.sql, which reads it for away).
ALTER TABLE users ADD COLUMN IF NOT EXISTS presence_enabled boolean NOT NULL DEFAULT true;

-- The reference's Realm.name_changes_disabled: members may not change their own name with PATCH /settings (which
-- then ignores full_name silently, as the reference does); administrators still may.
ALTER TABLE realms ADD COLUMN name_changes_disabled boolean NOT NULL DEFAULT false;
