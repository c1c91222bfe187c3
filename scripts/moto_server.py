#!/usr/bin/env python3
"""moto's server, one request at a time. Same arguments as `moto_server`.

DynamoDB applies every write to an item atomically, condition included. moto serves each request
on its own thread and checks a condition, then writes, with nothing in between held: two racing
`UpdateItem`s on the same version can both pass (seen here: 2 winners out of 32). That is a gap
in the emulator, not in the store, so the tests run moto behind one lock: requests are served one
after another, as DynamoDB's per-item atomicity would order them. Everything else is moto as is.
"""

import sys
import threading

import moto.server


def serialized(app):
    """The WSGI app, with each request (its whole response included) under one lock."""
    lock = threading.Lock()

    def serve(environ, start_response):
        with lock:
            return list(app(environ, start_response))

    return serve


def main():
    run_simple = moto.server.run_simple

    def run_serialized(host, port, app, **kwargs):
        return run_simple(host, port, serialized(app), **kwargs)

    moto.server.run_simple = run_serialized
    moto.server.main(sys.argv[1:])


if __name__ == "__main__":
    main()
