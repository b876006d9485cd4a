#!/usr/bin/env python3
"""Prepare the wrk rows of scripts/bench: channels, messages, queues, and one request file per row.

Given N users (email:key lines; the first ones send the load), it
  - subscribes all of them to a fan-out channel and gives each a registered event queue (POST /register),
  - reads --read-messages messages of an existing channel (--read-channel) all the load users are in,
  - has every load user post --edit-messages messages to the fan-out channel, for the edit row,
  - posts --pending messages to the fan-out channel, so that every queue holds pending events,
  - has every load user ping presence once, for the presence row (pings that move nothing),
  - checks every request of every row once (HTTP 200 expected), and
  - writes OUT/<row>.tsv for scripts/bench.d/requests.lua (METHOD, PATH, AUTHORIZATION, BODY).
Prints the row facts as JSON (channel ids, events per GET /events answer). Only the standard library; loopback.
"""
import argparse
import base64
import http.client
import json
import os
import urllib.parse


def auth(email, key):
    return "Basic " + base64.b64encode(f"{email}:{key}".encode()).decode()


class Client:
    def __init__(self, port, email, key):
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        self.authorization = auth(email, key)

    def raw(self, method, path, body=""):
        headers = {"Authorization": self.authorization} if self.authorization else {}
        if body:
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        self.conn.request(method, path, body=body or None, headers=headers)
        r = self.conn.getresponse()
        data = r.read()
        self.last_bytes = len(data)
        if r.status != 200:
            raise SystemExit(f"bench setup: {method} {path}: HTTP {r.status}: {data[:300]!r}")
        return json.loads(data or b"{}")

    def call(self, method, path, params=None):
        q = urllib.parse.urlencode(params or {})
        if method == "GET":
            return self.raw(method, "/api/v1" + path + ("?" + q if q else ""))
        return self.raw(method, "/api/v1" + path, q)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--users", required=True, help="file of email:key lines")
    ap.add_argument("--out", required=True, help="folder for the request files")
    ap.add_argument("--load-users", type=int, default=8, help="users whose credentials the load uses")
    ap.add_argument("--read-channel", required=True)
    ap.add_argument("--read-messages", type=int, default=50)
    ap.add_argument("--edit-messages", type=int, default=20)
    ap.add_argument("--pending", type=int, default=5)
    args = ap.parse_args()
    with open(args.users) as f:
        creds = [line.strip().split(":", 1) for line in f if line.strip()]
    clients = [Client(args.port, e, k) for e, k in creds]
    load = clients[:args.load_users]
    owner = clients[0]
    ids = [c.call("GET", "/users/me")["user_id"] for c in clients]
    tag = f"{os.getpid()}-{os.urandom(3).hex()}"
    fanout, read = f"bench-fanout-{tag}", args.read_channel

    def subscribe(name, user_ids):
        owner.call("POST", "/users/me/subscriptions", {"subscriptions": json.dumps([{"name": name}]),
                                                      "principals": json.dumps(user_ids)})
        subs = owner.call("GET", "/users/me/subscriptions")["subscriptions"]
        return next(s["stream_id"] for s in subs if s["name"] == name)

    fanout_id = subscribe(fanout, ids)
    edits = []
    for c in load:
        for i in range(args.edit_messages):
            edits.append((c, c.call("POST", "/messages", {"type": "stream", "to": fanout, "topic": "edits",
                                                          "content": f"to be edited {i}"})["id"]))
    queues = [c.call("POST", "/register")["queue_id"] for c in clients]
    for i in range(args.pending):
        owner.call("POST", "/messages", {"type": "stream", "to": fanout, "topic": "pending",
                                         "content": f"pending {i}"})

    # Presence: every load user has pinged once, so the row's pings (a minute apart in real clients, here back to
    # back) move no time and write nothing; each asks for what changed since the newest update id.
    for c in load:
        c.call("POST", "/users/me/presence", {"status": "active", "ping_only": "true"})
    presence_id = owner.call("POST", "/users/me/presence", {"status": "active", "last_update_id": -1})[
        "presence_last_update_id"]
    ping = urllib.parse.urlencode({"status": "active", "new_user_input": "true", "last_update_id": presence_id})

    narrow = json.dumps([{"operator": "channel", "operand": read}])
    get_messages = "/api/v1/messages?" + urllib.parse.urlencode(
        {"anchor": "newest", "num_before": args.read_messages, "num_after": 0, "narrow": narrow})
    send = urllib.parse.urlencode({"type": "stream", "to": fanout, "topic": "load", "content": "load **test**"})
    typing = urllib.parse.urlencode({"op": "start", "type": "stream", "stream_id": fanout_id, "topic": "load"})
    rows = {
        "static": [("GET", "/bench/static", "", "")],
        "noop": [("GET", "/bench/noop", "", "")],
        "users_me": [("GET", "/api/v1/users/me", c.authorization, "") for c in load],
        "messages_get": [("GET", get_messages, c.authorization, "") for c in load],
        "events_get": [("GET", "/api/v1/events?" + urllib.parse.urlencode(
            {"queue_id": q, "last_event_id": -1, "dont_block": "true"}), c.authorization, "")
            for c, q in zip(load, queues)],
        "messages_post": [("POST", "/api/v1/messages", c.authorization, send) for c in load],
        # requests.lua puts a counter in place of {n}: every edit changes the content.
        "messages_edit": [("PATCH", f"/api/v1/messages/{m}", c.authorization, "content=edit+{n}")
                          for c, m in edits],
        "typing": [("POST", "/api/v1/typing", c.authorization, typing) for c in load],
        "presence": [("POST", "/api/v1/users/me/presence", c.authorization, ping) for c in load],
        "register": [("POST", "/api/v1/register", c.authorization, "apply_markdown=true") for c in load],
    }
    facts = {"fanout_channel_id": fanout_id, "subscribers": len(ids), "queues": len(queues)}
    os.makedirs(args.out, exist_ok=True)
    for name, reqs in rows.items():
        # One check of each request (not of the writing rows' every line: they would add events).
        for method, path, authorization, body in (reqs if name not in ("messages_post", "messages_edit", "typing",
                                                                              "register")
                                                  else reqs[:1]):
            c = Client(args.port, "", "")
            c.authorization = authorization
            data = c.raw(method, path, body)
            if name == "messages_get":
                facts["messages_per_answer"] = len(data["messages"])
            elif name == "register":
                # It grows with the realm (users, channels), which every bench run adds to.
                facts["register_kb"] = c.last_bytes // 1024
        with open(os.path.join(args.out, name + ".tsv"), "w") as f:
            for r in reqs:
                f.write("\t".join(r) + "\n")
    # Counted after the checks above, which added events to the queues.
    method, path, authorization, _ = rows["events_get"][0]
    c = Client(args.port, "", "")
    c.authorization = authorization
    facts["events_per_answer"] = len(c.raw(method, path)["events"])
    print(json.dumps(facts))


if __name__ == "__main__":
    main()
