-- Typing notification settings of each user (the reference's UserProfile fields of the same names):
-- whether the user's own typing is announced in direct messages and in channels (POST /typing refuses to send
-- otherwise), and whether the user hears of others' typing at all.
ALTER TABLE users
    ADD COLUMN send_private_typing_notifications boolean NOT NULL DEFAULT true,
    ADD COLUMN send_stream_typing_notifications boolean NOT NULL DEFAULT true,
    ADD COLUMN receives_typing_notifications boolean NOT NULL DEFAULT true;
