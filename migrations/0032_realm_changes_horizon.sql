-- realm_changes is pruned by transaction ids instead of by the changing transaction's start time (changed_at): a
-- transaction left open longer than the pruning age wrote a row that was old when it committed, and a list kept
-- before that commit could then pass realm_kept_is_current() without it. The reaper records the oldest running
-- transaction id (pg_snapshot_xmin of the current snapshot) at every round; a row whose xid is older than the
-- horizon recorded at least 600 s ago (2 x the age of the oldest kept list) was visible to every snapshot a kept
-- list can have, and is deleted. Of the horizons older than that only the newest is kept.
CREATE TABLE realm_changes_horizons (
    taken_at timestamptz NOT NULL DEFAULT now(),
    horizon xid8 NOT NULL DEFAULT pg_snapshot_xmin(pg_current_snapshot())
);
CREATE INDEX realm_changes_horizons_taken ON realm_changes_horizons (taken_at);
