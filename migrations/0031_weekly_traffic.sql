-- stream_weekly_traffic (src/model/traffic.h) like the reference's: from daily message counts per channel (its
-- StreamCount rows of the stat messages_in_stream:is_bot:day, summed over is_bot), which confab-reaper fills for
-- the completed UTC days, instead of counting a channel's messages of the last 28 days at every Channel object.
-- Days without messages have no row; channel_traffic_filled says up to which day the rows are complete.
CREATE TABLE channel_traffic_days (
    channel_id bigint NOT NULL REFERENCES channels (id) ON DELETE CASCADE,
    day date NOT NULL,
    count bigint NOT NULL,
    PRIMARY KEY (channel_id, day)
);

-- One row: the last UTC day filled (NULL: none yet; the first fill counts the days stream_weekly_traffic reads).
CREATE TABLE channel_traffic_filled (
    one boolean PRIMARY KEY DEFAULT true CHECK (one),
    through date
);
INSERT INTO channel_traffic_filled (one, through) VALUES (true, NULL);
