/*
 * Daily message counts per channel for stream_weekly_traffic (model/traffic.h): the reaper runs traffic_fill every
 * traffic_interval seconds, like the reference's analytics cron fills messages_in_stream:is_bot:day.
 */
#include "model/traffic.h"

#include "core/uow.h"
#include "db/db.h"

/*
 * The lock first, in a statement of its own: the counting statement then takes its snapshot after the lock was
 * granted, so it sees every row committed by whoever held it (a run that waited for the lock with a snapshot taken
 * before it would count what it could see then and mark the days done; PostgreSQL re-reads only the locked row).
 */
static struct db_stmt st_lock = DB_STMT("SELECT 1 FROM channel_traffic_filled FOR UPDATE");
/*
 * f: the days to count, [lo, hi) (hi: today, UTC); a second run waits for the lock and then finds them counted.
 * Per channel, its messages of those days from the index messages_channel_date (a lateral subquery with GROUP BY
 * is not flattened: one range scan per channel, not a scan of every message), from the day the channel was created
 * on (the reference counts the days that end after its creation: messages dated earlier, imported, are not). Rows
 * older than the 28 days the traffic reads are deleted.
 */
static struct db_stmt st_fill =
    DB_STMT("WITH f AS (SELECT GREATEST(COALESCE(p.through + 1, t.today - 28), t.today - 28) AS lo, t.today AS hi"
            "  FROM channel_traffic_filled p, (SELECT (now() AT TIME ZONE 'UTC')::date AS today) t),"
            " ins AS (INSERT INTO channel_traffic_days (channel_id, day, count)"
            "  SELECT c.id, d.day, d.n FROM f CROSS JOIN channels c CROSS JOIN LATERAL"
            "  (SELECT (m.date_sent AT TIME ZONE 'UTC')::date AS day, count(*) AS n FROM messages m"
            "   WHERE m.channel_id = c.id AND m.date_sent >= GREATEST(f.lo::timestamp,"
            "     date_trunc('day', c.date_created AT TIME ZONE 'UTC')) AT TIME ZONE 'UTC'"
            "   AND m.date_sent < f.hi::timestamp AT TIME ZONE 'UTC' GROUP BY 1) d WHERE f.lo < f.hi"
            "  ON CONFLICT (channel_id, day) DO UPDATE SET count = EXCLUDED.count RETURNING 1),"
            " done AS (UPDATE channel_traffic_filled p SET through = f.hi - 1 FROM f WHERE f.lo < f.hi RETURNING 1),"
            " old AS (DELETE FROM channel_traffic_days t USING f WHERE f.lo < f.hi AND t.day < f.hi - 28 RETURNING 1)"
            " SELECT (SELECT count(*) FROM ins)");

int traffic_fill(struct uow *uow)
{
	struct db_res *res = NULL;
	if (db_begin(uow) < 0 || DB_EXEC(uow, &st_lock) == NULL || (res = DB_EXEC_COMMIT(uow, &st_fill)) == NULL)
		return -1;
	return (int)db_int(res, 0, 0);
}

int64_t traffic_round(int64_t n)
{
	int64_t unit = 1;
	for (int64_t m = n; m >= 100; m /= 10)
		unit *= 10;
	int64_t low = n % unit, down = n - low;
	if (2 * low > unit || (2 * low == unit && (down / unit) % 2 == 1))
		return down + unit;
	return down;
}
