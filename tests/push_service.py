#!/usr/bin/env python3
"""A Web Push service on loopback for the end-to-end tests (tests/api/push.rs).

It checks each push the way the real services do, with implementations independent of the
server's:

- the VAPID header (RFC 8292) is `vapid t=JWT, k=KEY`; KEY is the one `GET /push` serves (given
  with --key); the JWT is ES256, signed by KEY, its `aud` the origin of this service, its `exp`
  in the future and at most 24 hours ahead, and it has a `sub`;
- `Content-Encoding: aes128gcm` and a `TTL`; the body decrypts (RFC 8291) with the `http_ece`
  package, using the private key and auth secret made here for the subscriptions.

Subscriptions are made here: one P-256 key pair and auth secret, printed on the first line of
stdout as JSON `{"port", "p256dh", "auth"}`; every path under `/push/` is an endpoint. A path
whose last part starts with `gone` answers 410 (the subscription expired), `fail` 500 (the push
service is failing), and `stall` nothing for a minute (a push service that hangs: the push is
recorded when it arrives, with `"stalled": true`). `GET /received` lists every push received,
oldest first: `{"path", "ok", "error", "urgency", "ttl", "payload", "stalled"}`.
"""

import argparse
import base64
import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import http_ece
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature


def b64decode(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def b64encode(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


class State:
    def __init__(self, key):
        self.key = key
        self.private = ec.generate_private_key(ec.SECP256R1())
        self.auth = bytes(range(16))
        self.received = []
        self.lock = threading.Lock()
        self.origin = None

    def public(self):
        return self.private.public_key().public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
        )


def check_vapid(state, header):
    """Returns the JWT's claims, or raises ValueError saying why the header is refused."""
    if not header.startswith("vapid "):
        raise ValueError("not a vapid authorization")
    params = {}
    for part in header[len("vapid "):].split(","):
        name, _, value = part.strip().partition("=")
        params[name] = value
    token, key = params.get("t"), params.get("k")
    if not token or not key:
        raise ValueError("t and k are required")
    if key != state.key:
        raise ValueError("k is not the key GET /push serves")
    head64, claims64, sig64 = token.split(".")
    head = json.loads(b64decode(head64))
    if head.get("alg") != "ES256":
        raise ValueError(f"alg {head.get('alg')}")
    public = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), b64decode(key))
    sig = b64decode(sig64)
    if len(sig) != 64:
        raise ValueError("an ES256 signature is 64 bytes")
    der = encode_dss_signature(int.from_bytes(sig[:32], "big"), int.from_bytes(sig[32:], "big"))
    try:
        public.verify(der, f"{head64}.{claims64}".encode(), ec.ECDSA(hashes.SHA256()))
    except InvalidSignature:
        raise ValueError("bad signature")
    claims = json.loads(b64decode(claims64))
    if claims.get("aud") != state.origin:
        raise ValueError(f"aud {claims.get('aud')!r} is not {state.origin!r}")
    now = time.time()
    exp = claims.get("exp")
    if not isinstance(exp, (int, float)) or exp <= now or exp > now + 24 * 3600:
        raise ValueError(f"exp {exp} is not within 24 h")
    if not claims.get("sub"):
        raise ValueError("no sub")
    return claims


class Handler(BaseHTTPRequestHandler):
    state = None

    def log_message(self, *args):
        pass

    def answer(self, status, body=b""):
        self.send_response(status)
        self.send_header("Content-Length", str(len(body)))
        if body:
            self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        if self.path == "/received":
            with self.state.lock:
                body = json.dumps(self.state.received).encode()
            self.answer(200, body)
        else:
            self.answer(404)

    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length)
        record = {
            "path": self.path,
            "ok": False,
            "error": None,
            "urgency": self.headers.get("Urgency"),
            "ttl": self.headers.get("TTL"),
            "payload": None,
            "stalled": False,
        }
        status = 201
        try:
            if not self.path.startswith("/push/"):
                raise ValueError("not an endpoint")
            check_vapid(self.state, self.headers.get("Authorization", ""))
            if self.headers.get("Content-Encoding") != "aes128gcm":
                raise ValueError("Content-Encoding is not aes128gcm")
            if record["ttl"] is None or not record["ttl"].isdigit():
                raise ValueError("no TTL")
            plain = http_ece.decrypt(
                body,
                private_key=self.state.private,
                auth_secret=self.state.auth,
                version="aes128gcm",
            )
            record["payload"] = json.loads(plain)
            record["ok"] = True
            name = self.path.rsplit("/", 1)[-1]
            if name.startswith("gone"):
                status = 410
            elif name.startswith("fail"):
                status = 500
            elif name.startswith("stall"):
                record["stalled"] = True
        except Exception as e:  # every refusal is recorded for the test to show
            record["error"] = f"{type(e).__name__}: {e}"
            status = 400
        with self.state.lock:
            self.state.received.append(record)
        if record["stalled"]:
            # Hangs (this request's thread only); the sender gives up first and hangs up.
            time.sleep(60)
            try:
                self.answer(status)
            except OSError:
                pass
            return
        self.answer(status)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--key", required=True, help="the VAPID public key GET /push serves")
    args = parser.parse_args()
    state = State(args.key)
    Handler.state = state
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    port = server.server_address[1]
    state.origin = f"http://127.0.0.1:{port}"
    print(json.dumps({"port": port, "p256dh": b64encode(state.public()), "auth": b64encode(state.auth)}), flush=True)
    # Stops when the test that started it closes its stdin (or exits).
    threading.Thread(target=lambda: (sys.stdin.read(), server.shutdown()), daemon=True).start()
    server.serve_forever()


if __name__ == "__main__":
    main()
