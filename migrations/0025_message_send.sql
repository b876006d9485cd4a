-- Sending a message inserts one user_messages row per recipient. Each row's two foreign keys cost a check of their
-- own (a query per row locking the user's and the message's row FOR KEY SHARE: about 30% of a 51-row INSERT, and
-- under concurrent sends to one channel every sender's transaction locks the same users rows, so PostgreSQL builds a
-- multixact for each of them). The rows are only ever inserted for rows that cannot go away meanwhile: a send
-- inserts them in the transaction that inserted the message, from the subscriptions (which reference the users);
-- the other inserts (historical copies when flags or reactions change, copies on a move) lock the message row first
-- (FOR KEY SHARE, or the move's UPDATE). So the checks go, and what the keys did on deletion stays: deleting
-- messages or users deletes their copies, once per statement.
ALTER TABLE user_messages DROP CONSTRAINT user_messages_user_id_fkey,
    DROP CONSTRAINT user_messages_message_id_fkey;

CREATE FUNCTION confab_delete_copies_of_messages() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM user_messages um USING deleted d WHERE um.message_id = d.id;
    RETURN NULL;
END $$;
CREATE TRIGGER messages_delete_copies AFTER DELETE ON messages REFERENCING OLD TABLE AS deleted
    FOR EACH STATEMENT EXECUTE FUNCTION confab_delete_copies_of_messages();

CREATE FUNCTION confab_delete_copies_of_users() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM user_messages um USING deleted d WHERE um.user_id = d.id;
    RETURN NULL;
END $$;
CREATE TRIGGER users_delete_copies AFTER DELETE ON users REFERENCING OLD TABLE AS deleted
    FOR EACH STATEMENT EXECUTE FUNCTION confab_delete_copies_of_users();
