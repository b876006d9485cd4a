#!/usr/bin/env python3
"""Event delivery latency and long-poll capacity of a running confab stack (used by scripts/bench).

Delivery: a subscriber holds a long-poll (GET /events); the sender posts a message to the channel; the time from
the POST to the poll's answer is one sample. Capacity: N idle long-polls are held open at once while ordinary
requests (GET /users/me) are timed, and the memory of nginx, the workers and Redis is compared before and after.
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
    queue = receiver.call("GET", "/events", {"dont_block": "true"})["queue_id"]
    last = -1
    samples = []
    conn = http.client.HTTPConnection(args.host, args.port, timeout=120)
    for i in range(args.rounds):
        q = urllib.parse.urlencode({"queue_id": queue, "last_event_id": last})
        conn.request("GET", f"/api/v1/events?{q}", headers=receiver.headers)
        time.sleep(0.005)  # let the poll start waiting
        t0 = time.perf_counter()
        sender.call("POST", "/messages", {"type": "stream", "to": channel, "topic": "bench", "content": f"m{i}"})
        r = conn.getresponse()
        events = json.loads(r.read())["events"]
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


async def capacity(args, receiver, user_email, user_key):
    authorization = auth(user_email, user_key)
    queues = [receiver.call("GET", "/events", {"dont_block": "true"})["queue_id"] for _ in range(args.polls)]
    before = rss_kb({"nginx", "confab-worker", "redis-server"})
    held = []
    for i in range(0, len(queues), 200):
        held += await asyncio.gather(*(poll(args.host, args.port, authorization, q, -1) for q in queues[i:i + 200]))
    await asyncio.sleep(2)
    after = rss_kb({"nginx", "confab-worker", "redis-server"})
    probe = Client(args.host, args.port, user_email, user_key)
    times = []
    for _ in range(200):
        t0 = time.perf_counter()
        probe.call("GET", "/users/me")
        times.append((time.perf_counter() - t0) * 1000)
    # None of the held polls may have ended (a 502 would mean the events group ran out of threads).
    ended = sum(1 for reader, _ in held if reader.at_eof() or len(reader._buffer) > 0)
    for _, writer in held:
        writer.close()
    for q in queues:
        receiver.call("DELETE", "/events", {"queue_id": q})
    return {"held": len(held) - ended, "ended_early": ended, "users_me_p50_ms": percentile(times, 50),
            "users_me_p99_ms": percentile(times, 99), "kb_per_poll": (after - before) / max(1, len(held))}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, default=9991)
    ap.add_argument("--sender", required=True, help="email:key")
    ap.add_argument("--receiver", required=True, help="email:key")
    ap.add_argument("--rounds", type=int, default=200)
    ap.add_argument("--polls", type=int, default=900)
    args = ap.parse_args()
    s_email, s_key = args.sender.split(":")
    r_email, r_key = args.receiver.split(":")
    sender = Client(args.host, args.port, s_email, s_key)
    receiver = Client(args.host, args.port, r_email, r_key)
    channel = f"bench-{os.getpid()}"
    sender.call("POST", "/users/me/subscriptions",
                {"subscriptions": json.dumps([{"name": channel}]),
                 "principals": json.dumps([sender.call("GET", "/users/me")["user_id"],
                                           receiver.call("GET", "/users/me")["user_id"]])})
    samples = delivery(args, sender, receiver, channel)
    out = {"delivery_rounds": len(samples), "delivery_p50_ms": percentile(samples, 50),
           "delivery_p99_ms": percentile(samples, 99), "delivery_mean_ms": statistics.mean(samples)}
    out.update(asyncio.run(capacity(args, receiver, r_email, r_key)))
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
