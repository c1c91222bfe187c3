#!/usr/bin/env python3
"""Checks that a running `madang` built without the `dev` feature has no test support, even with
MADANG_DEV=1 in its environment: `POST /dev/clock` is 404, `seed` on `POST /rooms` is refused,
the served contract names neither, and a plain create still works.

Usage: scripts/check_no_dev.py http://127.0.0.1:PORT  (run by scripts/test on the release-feature
binary it fuzzes with schemathesis)."""
import json
import sys
import urllib.error
import urllib.request

base = sys.argv[1]


def call(path, body=None):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(base + path, data, {"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req) as r:
            return r.status, json.load(r)
    except urllib.error.HTTPError as e:
        return e.code, json.load(e)


status, body = call("/dev/clock", {"advanceMs": 1000})
assert (status, body["code"]) == (404, "NO_SUCH_ROUTE"), (status, body)
status, body = call("/rooms", {"game": "yut", "name": "철수", "seed": 1})
assert status == 400 and "seed" in body.get("reason", ""), (status, body)
status, _ = call("/rooms", {"game": "yut", "name": "철수"})
assert status == 201, status
status, doc = call("/openapi.json")
assert status == 200 and "/dev/clock" not in doc["paths"] and "DevClock" not in doc["components"]["schemas"]
assert "MADANG_DEV" not in json.dumps(doc, ensure_ascii=False), "the served contract documents dev support"
print("   no dev support without the dev feature, MADANG_DEV=1 or not")
