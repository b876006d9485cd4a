#!/usr/bin/env python3
"""Validates the success responses the integration tests received against the reference's OpenAPI schemas.

Usage: tests/openapi/check.py LOG [SCHEMAS]

LOG has one JSON object per line, written by confab-itest when CONFAB_OPENAPI_LOG names it:
{"m": method, "p": path (no query), "b": the parsed body} for every HTTP 200 answer with a JSON body. Each is checked
against the schema of its path and method in tests/openapi/schemas.json (made by scripts/gen-openapi); GET /events
answers carry the events, so every event a test received is checked as well. Paths the reference does not describe
are counted and skipped. Exits 1 if any response does not validate, printing each distinct failure once with the
number of responses it covers and one example.
"""
import collections
import json
import os
import re
import sys

import jsonschema

PREFIX = "/api/v1"


def templates(paths):
    """(regex, literal segment count, template) for every path, most literal first."""
    out = []
    for t in paths:
        parts = t.strip("/").split("/")
        rx = "/".join("[^/]+" if p.startswith("{") else re.escape(p) for p in parts)
        literal = sum(1 for p in parts if not p.startswith("{"))
        out.append((re.compile("^/" + rx + "$"), literal, t))
    out.sort(key=lambda x: -x[1])
    return out


def find_template(tmpls, path):
    for rx, _, t in tmpls:
        if rx.match(path):
            return t
    return None


def where(error):
    return "/".join("*" if isinstance(p, int) else str(p) for p in error.absolute_path) or "(body)"


def discriminator_miss(error):
    """An enum failure on the fields that pick an alternative (an event's type, op, property)."""
    return error.validator == "enum" and error.absolute_path and error.absolute_path[-1] in ("type", "op", "property")


def accepted_extra(error, allowed):
    """An additionalProperties error whose unexpected names are all newer than the OpenAPI file."""
    if error.validator != "additionalProperties" or not isinstance(error.instance, dict):
        return False
    known = error.schema.get("properties", {})
    return all(name in allowed for name in error.instance if name not in known)


def message(error, allowed):
    """The error's message; for unexpected properties, only the names that are not accepted."""
    if error.validator == "additionalProperties" and isinstance(error.instance, dict):
        known = error.schema.get("properties", {})
        names = sorted(n for n in error.instance if n not in known and n not in allowed)
        return "unexpected properties %s" % ", ".join(names)
    return error.message[:300]


def reasons(error, allowed):
    """The errors that count: additionalProperties errors about documented newer names do not; for an anyOf (an
    event that fits none of the event schemas), none if one alternative fits apart from those, else the errors of
    the alternative whose type and op matched."""
    if error.validator != "anyOf" or not error.context:
        return [] if accepted_extra(error, allowed) else [error]
    branches = collections.defaultdict(list)
    for e in error.context:
        branches[e.relative_schema_path[0]].append(e)
    if len(branches) < len(error.validator_value):
        return []  # an alternative without errors
    per_branch = [[r for e in es for r in reasons(e, allowed)] for es in branches.values()]
    if any(not rs for rs in per_branch):
        return []
    raw = list(branches.values())
    best = min(range(len(raw)), key=lambda i: (sum(1 for e in raw[i] if discriminator_miss(e)), len(per_branch[i])))
    return per_branch[best]


def described_events(body, skipped_types, counter):
    """body without the events of types (or type/op) the OpenAPI file does not describe (counted in counter)."""
    events = body.get("events")
    if not isinstance(events, list):
        return body
    kept = []
    for event in events:
        if not isinstance(event, dict):
            kept.append(event)
            continue
        # An entry names a whole event type, or one op of it as "type/op".
        name = next((n for n in (event.get("type"), "%s/%s" % (event.get("type"), event.get("op")))
                     if isinstance(n, str) and n in skipped_types), None)
        if name is not None:
            counter["event " + name] += 1
        else:
            kept.append(event)
    return dict(body, events=kept)


def main():
    log = sys.argv[1]
    here = os.path.dirname(os.path.abspath(__file__))
    schemas_file = sys.argv[2] if len(sys.argv) > 2 else os.path.join(here, "schemas.json")
    with open(schemas_file, encoding="utf-8") as f:
        doc = json.load(f)
    with open(os.path.join(here, "newer.json"), encoding="utf-8") as f:
        newer = json.load(f)
    allowed = set(doc["documented_names"]) | set(newer["properties"])
    resolver = jsonschema.RefResolver.from_schema(doc)
    tmpls = templates(doc["paths"])
    checked = collections.Counter()
    skipped = collections.Counter()
    failures = collections.OrderedDict()
    with open(log, encoding="utf-8") as f:
        for line in f:
            rec = json.loads(line)
            path = rec["p"][len(PREFIX):] if rec["p"].startswith(PREFIX) else None
            t = find_template(tmpls, path) if path else None
            schema = doc["paths"].get(t, {}).get(rec["m"]) if t else None
            if schema is None:
                skipped["%s %s" % (rec["m"], t or re.sub(r"/[0-9]+(?=/|$)", "/{n}", rec["p"]))] += 1
                continue
            checked["%s %s" % (rec["m"], t)] += 1
            body = described_events(rec["b"], newer["event_types"], skipped)
            validator = jsonschema.Draft7Validator(schema, resolver=resolver)
            for reason in (r for e in validator.iter_errors(body) for r in reasons(e, allowed)):
                key = (rec["m"], t, "%s: %s" % (where(reason), message(reason, allowed)))
                text = "%s %s %s" % key
                # An entry may write N for the numbers of the message (the timestamps of a newer answer).
                if text in newer["errors"] or re.sub(r"[0-9]+", "N", text) in newer["errors"]:
                    continue
                if key not in failures:
                    failures[key] = [0, rec["b"]]
                failures[key][0] += 1
    print("openapi: %d responses of %d operations validated; skipped as undescribed: %s"
          % (sum(checked.values()), len(checked), ", ".join("%s (%d)" % kv for kv in sorted(skipped.items()))))
    for (method, t, reason), (count, example) in failures.items():
        text = json.dumps(example)
        print("MISMATCH %s %s (%d responses): %s\n    e.g. %s" % (method, t, count, reason, text[:600]))
    return 1 if failures else 0


sys.exit(main())
