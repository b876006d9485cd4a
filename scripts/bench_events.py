#!/usr/bin/env python3
"""Event delivery latency and long-poll capacity of a running confab stack (used by scripts/bench).

  bench_events.py delivery --sender E:K --receiver E:K (--rounds N | --seconds S)
  bench_events.py capacity --user E:K --steps N1 N2 ...

Delivery: a subscriber holds a long-poll (GET /events); the sender posts a message to a channel of the two; the
time from the POST to the poll's answer is one sample. Capacity: idle long-polls are held open in growing steps;
at each, ordinary requests (GET /users/me) are timed and the memory of nginx, the workers and Redis is compared
with before the first; it stops at the first step where a poll ended or the 99th percentile reached 50 ms.
Only the standard library; only loopback addresses.
"""
import argparse
import asyncio
import base64
import http.client
import json
import os
import statistics
import subprocess
import time
import urllib.parse


def auth(email, key):
    return "Basic " + base64.b64encode(f"{email}:{key}".encode()).decode()


class Client:
    """One keep-alive HTTP/1.1 connection."""

    def __init__(self, host, port, email, key):
        self.conn = http.client.HTTPConnection(host, port, timeout=120)
        self.headers = {"Authorization": auth(email, key)}

    def call(self, method, path, params=None):
        body = urllib.parse.urlencode(params or {})
        headers = dict(self.headers)
        if method == "GET":
            path += ("?" + body) if body else ""
            body = None
        else:
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        self.conn.request(method, "/api/v1" + path, body=body, headers=headers)
        r = self.conn.getresponse()
        data = json.loads(r.read() or b"{}")
        if r.status != 200:
            raise RuntimeError(f"{method} {path}: {r.status} {data}")
        return data


def percentile(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


async def poll(host, port, authorization, queue_id, last_event_id):
    """One long-poll on its own connection; returns (reader, writer) once the request is sent."""
    reader, writer = await asyncio.open_connection(host, port)
    q = urllib.parse.urlencode({"queue_id": queue_id, "last_event_id": last_event_id})
    writer.write(f"GET /api/v1/events?{q} HTTP/1.1\r\nHost: {host}\r\nAuthorization: {authorization}\r\n"
                 f"Connection: close\r\n\r\n".encode())
    await writer.drain()
    return reader, writer


def delivery(args, sender, receiver, channel):
    """--rounds samples, or as many as fit in --seconds."""
    queue = receiver.call("GET", "/events", {"dont_block": "true"})["queue_id"]
    last = -1
    samples = []
    conn = http.client.HTTPConnection(args.host, args.port, timeout=120)
    deadline = time.monotonic() + (args.seconds or 1e9)
    warmup = args.warmup
    while len(samples) < (args.rounds or 1e9) and time.monotonic() < deadline:
        q = urllib.parse.urlencode({"queue_id": queue, "last_event_id": last})
        conn.request("GET", f"/api/v1/events?{q}", headers=receiver.headers)
        time.sleep(0.005)  # let the poll start waiting
        t0 = time.perf_counter()
        sender.call("POST", "/messages", {"type": "stream", "to": channel, "topic": "bench",
                                          "content": f"m{len(samples)}"})
        r = conn.getresponse()
        events = json.loads(r.read())["events"]
        if warmup > 0:
            warmup -= 1  # not measured: first uses of the workers' database connections, cold caches
        else:
            samples.append((time.perf_counter() - t0) * 1000)
        last = events[-1]["id"]
    return samples


def rss_kb(names):
    total = 0
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/comm") as f:
                comm = f.read().strip()
            if comm in names:
                with open(f"/proc/{pid}/status") as f:
                    for line in f:
                        if line.startswith("VmRSS:"):
                            total += int(line.split()[1])
        except OSError:
            pass
    return total


async def capacity(args):
    """Holds idle long-polls in growing steps; at each, times GET /users/me and weighs the stack."""
    email, key = args.user.split(":")
    user = Client(args.host, args.port, email, key)
    authorization = auth(email, key)
    names = {"nginx", "confab-worker", "redis-server"}
    before = rss_kb(names)
    queues, held, steps, capacity = [], [], [], 0
    for wanted in args.steps:
        queues += [user.call("GET", "/events", {"dont_block": "true"})["queue_id"]
                   for _ in range(wanted - len(queues))]
        for i in range(len(held), wanted, 200):
            held += await asyncio.gather(*(poll(args.host, args.port, authorization, q, -1)
                                           for q in queues[i:min(i + 200, wanted)]))
        await asyncio.sleep(2)
        after = rss_kb(names)
        times = []
        for _ in range(200):
            t0 = time.perf_counter()
            user.call("GET", "/users/me")
            times.append((time.perf_counter() - t0) * 1000)
        # A held poll must not have ended (a 502 would mean the events group ran out of threads).
        ended = sum(1 for reader, _ in held if reader.at_eof() or len(reader._buffer) > 0)
        step = {"wanted": wanted, "held": len(held) - ended, "users_me_p50_ms": percentile(times, 50),
                "users_me_p99_ms": percentile(times, 99), "kb_per_poll": (after - before) / max(1, len(held))}
        steps.append(step)
        if ended or step["users_me_p99_ms"] >= 50:
            break
        capacity = step["held"]
    for _, writer in held:
        writer.close()
    for q in queues:
        user.call("DELETE", "/events", {"queue_id": q})
    return {"capacity": capacity, "steps": steps}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("what", choices=["delivery", "capacity"])
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, default=9991)
    ap.add_argument("--sender", help="email:key (delivery)")
    ap.add_argument("--receiver", help="email:key (delivery)")
    ap.add_argument("--rounds", type=int, default=0, help="delivery samples")
    ap.add_argument("--seconds", type=float, default=0, help="delivery for this long instead")
    ap.add_argument("--warmup", type=int, default=0, help="delivery rounds to run first, not measured")
    ap.add_argument("--user", help="email:key (capacity)")
    ap.add_argument("--steps", type=int, nargs="+", default=[900], help="polls to hold (capacity)")
    args = ap.parse_args()
    if args.what == "capacity":
        print(json.dumps(asyncio.run(capacity(args)), indent=2))
        return
    s_email, s_key = args.sender.split(":")
    r_email, r_key = args.receiver.split(":")
    sender = Client(args.host, args.port, s_email, s_key)
    receiver = Client(args.host, args.port, r_email, r_key)
    channel = f"bench-{os.getpid()}-{os.urandom(3).hex()}"
    sender.call("POST", "/users/me/subscriptions",
                {"subscriptions": json.dumps([{"name": channel}]),
                 "principals": json.dumps([sender.call("GET", "/users/me")["user_id"],
                                           receiver.call("GET", "/users/me")["user_id"]])})
    samples = delivery(args, sender, receiver, channel)
    print(json.dumps({"rounds": len(samples), "p50_ms": percentile(samples, 50), "p99_ms": percentile(samples, 99),
                      "mean_ms": statistics.mean(samples)}, indent=2))


if __name__ == "__main__":
    main()
