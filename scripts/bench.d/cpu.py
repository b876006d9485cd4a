#!/usr/bin/env python3
"""CPU time by program, for scripts/bench: where each row's time goes.

  cpu.py snapshot > FILE            CPU ticks (user + system) of every process, summed by program name
  cpu.py diff BEFORE AFTER REQUESTS  microseconds of CPU per request for postgres, confab-worker, nginx and
                                    redis-server (and pgbouncer, when it runs), as one line
                                    "postgres=... worker=... nginx=... redis=...[ pgbouncer=...]"
Reads /proc only. Processes that ended between the snapshots (wrk itself) are not counted. With CF_CPU_PIDFILES
(pid files, separated by spaces; scripts/bench names its stack's), only those processes and their descendants are
counted, so that other stacks on the same machine do not count.
"""
import json
import os
import sys

NAMES = {"postgres": "postgres", "confab-worker": "worker", "nginx": "nginx", "redis-server": "redis",
         "pgbouncer": "pgbouncer"}


def roots():
    """The pids of the pid files named in CF_CPU_PIDFILES (first line of each), or None to count everything."""
    files = os.environ.get("CF_CPU_PIDFILES", "").split()
    if not files:
        return None
    pids = set()
    for name in files:
        try:
            with open(name) as f:
                pids.add(f.readline().strip())
        except OSError:
            pass
    return pids


def snapshot():
    ticks = {}
    stats = {}
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/stat") as f:
                stat = f.read()
        except OSError:
            continue
        stats[pid] = (stat[stat.index("(") + 1:stat.rindex(")")], stat[stat.rindex(")") + 2:].split())
    mine = roots()

    def counted(pid):
        for _ in range(64):  # up the parents (fields[1] is the parent's pid)
            if pid in mine:
                return True
            if pid not in stats:
                return False
            pid = stats[pid][1][1]
        return False

    for pid, (name, fields) in stats.items():
        # utime and stime are fields 14 and 15 of stat(5); fields[] starts at field 3.
        key = NAMES.get(name)
        if key and (mine is None or counted(pid)):
            ticks[key] = ticks.get(key, 0) + int(fields[11]) + int(fields[12])
    return ticks


def main():
    if sys.argv[1] == "snapshot":
        json.dump(snapshot(), sys.stdout)
        return
    before, after = (json.load(open(p)) for p in sys.argv[2:4])
    requests = max(1, int(sys.argv[4]))
    hz = os.sysconf("SC_CLK_TCK")
    # pgbouncer only when it runs (scripts/bench --pgbouncer).
    keys = ("postgres", "worker", "nginx", "redis") + (("pgbouncer",) if "pgbouncer" in after else ())
    print(" ".join(f"{k}={(after.get(k, 0) - before.get(k, 0)) * 1e6 / hz / requests:.0f}" for k in keys))


if __name__ == "__main__":
    main()
