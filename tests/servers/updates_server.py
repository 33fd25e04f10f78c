#!/usr/bin/env python3
"""A raw stdio MCP server whose one resource keeps changing, in both eras (stdlib only).

Usage: ``python tests/servers/updates_server.py [--interval S] [--exit-after N]``

``--exit-after N``: the process exits (code 7, ``ticker done`` on stderr) after N updates.
``--also URI``: each tick first sends an update of URI too (a resource nobody subscribed to).

* Legacy: ``initialize`` (capabilities ``resources {subscribe}``, ``logging``);
  ``resources/subscribe`` of ``ticker://clock`` starts ``notifications/resources/updated``
  every ``--interval`` seconds (default 0.05) until ``resources/unsubscribe``;
  ``logging/setLevel`` answers ``{}`` and then sends a ``notifications/message`` at that
  level saying ``level set to <level>``.
* Modern (2026-07-28): ``server/discover``; ``subscriptions/listen`` with
  ``resourceSubscriptions`` is acknowledged and the updates come tagged with its
  subscriptionId until the client cancels it (``notifications/cancelled``).
* ``resources/list`` lists ``ticker://clock``; ``resources/read`` gives the tick count.

Every subscribe, unsubscribe and listen start/stop is written to stderr
(``subscribed <uri>``, ``unsubscribed <uri>``, ``listen <id>``, ``listen-ended <id>``).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import threading
from typing import Any

URI = "ticker://clock"
MODERN = "2026-07-28"
SUB_KEY = "io.modelcontextprotocol/subscriptionId"
LEGACY = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")

lock = threading.Lock()
ticks = 0
EXIT_AFTER: int | None = None
ALSO: str | None = None


def send(message: dict) -> None:
    with lock:
        sys.stdout.write(json.dumps(message) + "\n")
        sys.stdout.flush()


def log(text: str) -> None:
    sys.stderr.write(text + "\n")
    sys.stderr.flush()


class Ticker:
    """Sends updates of URI every interval until stopped (one per subscription)."""

    def __init__(self, interval: float, tag: object = None) -> None:
        self.stop = threading.Event()
        self.interval = interval
        self.tag = tag
        threading.Thread(target=self.run, daemon=True).start()

    def run(self) -> None:
        global ticks
        while not self.stop.wait(self.interval):
            ticks += 1
            for uri in (ALSO, URI) if ALSO else (URI,):
                params: dict = {"uri": uri}
                if self.tag is not None:
                    params["_meta"] = {SUB_KEY: self.tag}
                send({"jsonrpc": "2.0", "method": "notifications/resources/updated", "params": params})
            if EXIT_AFTER is not None and ticks >= EXIT_AFTER:
                log("ticker done")
                os._exit(7)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--interval", type=float, default=0.05)
    parser.add_argument("--exit-after", type=int, default=None)
    parser.add_argument("--also", default=None)
    args = parser.parse_args()
    global EXIT_AFTER, ALSO
    EXIT_AFTER = args.exit_after
    ALSO = args.also
    legacy_ticker: Ticker | None = None
    listens: dict[object, Ticker] = {}
    resources = [{"uri": URI, "name": "clock", "mimeType": "text/plain"}]
    for line in sys.stdin:
        try:
            message = json.loads(line)
        except ValueError:
            continue
        method, rid = message.get("method"), message.get("id")
        params = message.get("params") or {}
        if method is None:
            continue
        if rid is None:
            if method == "notifications/cancelled" and params.get("requestId") in listens:
                listens.pop(params["requestId"]).stop.set()
                log(f"listen-ended {params['requestId']}")
            continue

        def reply(result: dict, rid: Any = rid) -> None:
            send({"jsonrpc": "2.0", "id": rid, "result": result})

        def fail(code: int, text: str, rid: Any = rid) -> None:
            send({"jsonrpc": "2.0", "id": rid, "error": {"code": code, "message": text}})

        if method == "initialize":
            version = params.get("protocolVersion")
            reply(
                {
                    "protocolVersion": version if version in LEGACY else LEGACY[-1],
                    "capabilities": {"resources": {"subscribe": True}, "logging": {}},
                    "serverInfo": {"name": "updates-server", "version": "1.0.0"},
                }
            )
        elif method == "server/discover":
            reply(
                {
                    "resultType": "complete",
                    "supportedVersions": [MODERN],
                    "capabilities": {"resources": {"subscribe": True}, "logging": {}},
                    "serverInfo": {"name": "updates-server", "version": "1.0.0"},
                }
            )
        elif method == "ping":
            reply({})
        elif method == "resources/list":
            reply({"resources": resources})
        elif method == "resources/read":
            reply({"contents": [{"uri": URI, "mimeType": "text/plain", "text": f"ticks: {ticks}"}]})
        elif method == "resources/subscribe":
            log(f"subscribed {params.get('uri')}")
            if params.get("uri") != URI:
                fail(-32602, f"no resource {params.get('uri')}")
                continue
            reply({})
            if legacy_ticker is None:
                legacy_ticker = Ticker(args.interval)
        elif method == "resources/unsubscribe":
            log(f"unsubscribed {params.get('uri')}")
            if legacy_ticker is not None:
                legacy_ticker.stop.set()
                legacy_ticker = None
            reply({})
        elif method == "logging/setLevel":
            reply({})
            send(
                {
                    "jsonrpc": "2.0",
                    "method": "notifications/message",
                    "params": {
                        "level": params.get("level"),
                        "logger": "updates",
                        "data": f"level set to {params.get('level')}",
                    },
                }
            )
        elif method == "subscriptions/listen":
            wanted = (params.get("notifications") or {}).get("resourceSubscriptions") or []
            log(f"listen {rid}")
            honoured = {"resourceSubscriptions": [uri for uri in wanted if uri == URI]}
            send(
                {
                    "jsonrpc": "2.0",
                    "method": "notifications/subscriptions/acknowledged",
                    "params": {"notifications": honoured, "_meta": {SUB_KEY: rid}},
                }
            )
            if URI in wanted:
                listens[rid] = Ticker(args.interval, tag=rid)
        else:
            fail(-32601, f"Method not found: {method}")


if __name__ == "__main__":
    main()
