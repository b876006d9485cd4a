/*
 * stream_weekly_traffic as the reference computes it (zerver/lib/stream_traffic.py): from daily message counts per
 * channel (table channel_traffic_days, migrations/0031_weekly_traffic.sql; its StreamCount rows of the stat
 * messages_in_stream:is_bot:day), which the reaper fills every traffic_interval seconds for the completed UTC days
 * (traffic_fill), rather than from the messages at every read. CHANNEL_COUNT_TRAFFIC (model/channels.h) reads them
 * and channel_to_json() rounds (traffic_round).
 */
#ifndef CONFAB_TRAFFIC_H
#define CONFAB_TRAFFIC_H

#include <stdint.h>

struct uow;

/*
 * Counts, in one statement, the channel messages of the completed UTC days not counted yet (at most the 28 the
 * traffic reads; none when yesterday is done), one row per channel and day with messages, and forgets the rows no
 * read needs any more. Rows of a day counted again are replaced (idempotent); two runs at once count a day once.
 * Returns the number of rows written, or -1 with the error recorded.
 */
int traffic_fill(struct uow *uow);

/* The reference's round_to_2_significant_digits: n rounded to its two leading digits, ties to even as Python's
 * round() (125 -> 120, 135 -> 140, 1250 -> 1200, 1251 -> 1300). n >= 0. */
int64_t traffic_round(int64_t n);

/*
 * The traffic of channel c (SQL): NULL when it is less than 7 days old; else its messages of the days whose end is
 * within the last 28 days, divided by 4 from 28 days of age on, else times 7 divided by its age in days (whole
 * days, rounded down); 1 rather than 0 when it had messages. Not yet rounded (traffic_round).
 */
#define TRAFFIC_SQL                                                                                                    \
	"(SELECT CASE WHEN x.age < 7 THEN NULL WHEN x.s = 0 THEN 0"                                                    \
	"  ELSE GREATEST(CASE WHEN x.age >= 28 THEN x.s / 4 ELSE x.s * 7 / x.age END, 1) END"                          \
	"  FROM (SELECT COALESCE(sum(t.count), 0)::bigint AS s,"                                                       \
	"    floor(extract(epoch FROM now() - c.date_created) / 86400)::bigint AS age FROM channel_traffic_days t"     \
	"    WHERE t.channel_id = c.id AND t.day >= ((now() AT TIME ZONE 'UTC') - interval '28 days')::date) x)"

#endif
