"""A raw stdio MCP server (stdlib only) for the Resources view's tests: a resource list
that changes on request, paging, and read results of every awkward kind.

Legacy era (2025-11-25). Capabilities: ``resources {listChanged}`` (no ``subscribe``:
the client warns and asks anyway; ``resources/subscribe`` -> -32601), ``tools``.

* ``resources/list``: paged, 2 per page (cursor ``"p<N>"``). Resources:
  ``res://text`` (text/plain), ``res://bin`` (application/octet-stream, 300 bytes),
  ``res://multi`` (two contents), ``res://big`` (300,000 characters), ``res://bad``
  (a malformed result: ``contents`` is a string), ``res://broken-item`` (a content
  without text or blob), ``res://icon`` (with ``icons``), ``res://gone`` (removed by
  ``mutate``). After ``mutate``: ``res://text`` gets a new description, ``res://gone`` is
  removed, ``res://new`` is added, and ``notifications/resources/list_changed`` is sent.
* ``resources/templates/list``: ``res://item/{id}`` (one page); with ``--no-templates``,
  -32601 (a server that has no templates and does not implement the method).
* ``resources/read``: as above, plus ``res://hugeblob`` (not listed: 3 MB of binary),
  ``res://badimage`` (not listed: image/png whose bytes are no image), ``res://odd`` (not
  listed: text a number, blob not base64, no uri), ``res://textblobs`` (not listed: Markdown
  and JSON as base64 blobs, and a text/plain blob that is Latin-1, not UTF-8), ``res://bigjson`` (not listed: compact
  JSON, 150 KB) and
  ``res://never`` (not listed: never answered); an
  unknown URI -> -32002 "Resource not found".
* ``tools/list``: ``mutate``; ``tools/call mutate`` -> text "mutated".

``--bad-template``: a second template, ``res://bad/{a b}`` (not RFC 6570: a space).

``--endless``: after its own pages, ``resources/list`` pages for ever: 1,000 generated
resources (``gen://<page>/<n>``) a page, each with a fresh ``nextCursor`` (never a loop).
"""

from __future__ import annotations

import base64
import json
import sys

state = {"mutated": False}


def resources() -> list[dict]:
    items = [
        {
            "uri": "res://text",
            "name": "text",
            "title": "Plain text",
            "description": "after" if state["mutated"] else "before",
            "mimeType": "text/plain",
        },
        {"uri": "res://bin", "name": "bin", "mimeType": "application/octet-stream", "size": 300},
        {"uri": "res://multi", "name": "multi", "title": "Two contents"},
        {"uri": "res://big", "name": "big", "mimeType": "text/plain"},
        {"uri": "res://bad", "name": "bad"},
        {"uri": "res://broken-item", "name": "broken-item"},
        {
            "uri": "res://icon",
            "name": "icon",
            "icons": [{"src": "data:image/png;base64,AAAA", "mimeType": "image/png"}],
            "annotations": {"audience": ["user"], "priority": 0.5, "lastModified": "2026-01-02T03:04:05Z"},
        },
    ]
    if state["mutated"]:
        items.append({"uri": "res://new", "name": "new", "title": "Newly added"})
    else:
        items.append({"uri": "res://gone", "name": "gone", "title": "Soon removed"})
    return items


def read(uri: str) -> dict | None:
    if uri == "res://text":
        return {"contents": [{"uri": uri, "mimeType": "text/plain", "text": "hello resources"}]}
    if uri == "res://bin":
        data = bytes(range(256)) + b"x" * 44
        return {
            "contents": [{"uri": uri, "mimeType": "application/octet-stream", "blob": base64.b64encode(data).decode()}]
        }
    if uri == "res://hugeblob":  # not listed: 3 MB of binary, read by URI
        data = b"\x00HUGE" + bytes(3_000_000)
        return {
            "contents": [{"uri": uri, "mimeType": "application/octet-stream", "blob": base64.b64encode(data).decode()}]
        }
    if uri == "res://textblobs":  # not listed: text sent as base64 blobs (Markdown, JSON, and Latin-1: not UTF-8)
        return {
            "contents": [
                {
                    "uri": uri + "#md",
                    "mimeType": "text/markdown",
                    "blob": base64.b64encode("# Blob title\n\ncafé *text*".encode()).decode(),
                },
                {
                    "uri": uri + "#json",
                    "mimeType": "application/json",
                    "blob": base64.b64encode(b'{"from":"blob","n":[1,2]}').decode(),
                },
                {
                    "uri": uri + "#latin1",
                    "mimeType": "text/plain",
                    "blob": base64.b64encode("caf\u00e9".encode("latin-1")).decode(),
                },
            ]
        }
    if uri == "res://badimage":  # not listed: image/png that is not a PNG
        return {
            "contents": [{"uri": uri, "mimeType": "image/png", "blob": base64.b64encode(b"not a png at all").decode()}]
        }
    if uri == "res://bigjson":  # not listed: compact JSON over the display cap (150 KB)
        return {
            "contents": [
                {
                    "uri": uri,
                    "mimeType": "application/json",
                    "text": json.dumps([{"n": n, "name": f"item {n}"} for n in range(6000)], separators=(",", ":")),
                }
            ]
        }
    if uri == "res://odd":  # not listed: three malformed contents
        return {"contents": [{"uri": uri, "text": 42}, {"uri": uri, "blob": "not base64!"}, {"text": "no uri"}]}
    if uri == "res://multi":
        return {
            "contents": [
                {"uri": uri + "#1", "mimeType": "text/plain", "text": "first part"},
                {"uri": uri + "#2", "mimeType": "application/json", "text": json.dumps({"second": [1, 2, 3]})},
            ]
        }
    if uri == "res://big":
        return {"contents": [{"uri": uri, "mimeType": "text/plain", "text": "0123456789" * 30_000}]}
    if uri == "res://bad":
        return {"contents": "not an array"}
    if uri == "res://broken-item":
        return {"contents": [{"uri": uri, "mimeType": "text/plain"}]}
    if uri.startswith("res://item/"):
        return {"contents": [{"uri": uri, "mimeType": "text/plain", "text": f"item {uri[len('res://item/') :]}"}]}
    if uri in {r["uri"] for r in resources()}:
        return {"contents": [{"uri": uri, "mimeType": "text/plain", "text": uri}]}
    return None


def send(message: dict) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def answer(request: dict) -> None:
    method, rid, params = request.get("method"), request.get("id"), request.get("params") or {}
    if method == "initialize":
        send(
            {
                "jsonrpc": "2.0",
                "id": rid,
                "result": {
                    "protocolVersion": "2025-11-25",
                    "serverInfo": {"name": "resources-server", "version": "1"},
                    "capabilities": {"resources": {"listChanged": True}, "tools": {}},
                },
            }
        )
    elif method == "resources/list":
        items = resources()
        cursor = str(params.get("cursor") or "p0")
        if cursor.startswith("g"):  # --endless: a fresh page and a fresh cursor, for ever
            page_no = int(cursor[1:])
            send(
                {
                    "jsonrpc": "2.0",
                    "id": rid,
                    "result": {
                        "resources": [
                            {"uri": f"gen://{page_no}/{n}", "name": f"gen {page_no}/{n}"} for n in range(1000)
                        ],
                        "nextCursor": f"g{page_no + 1}",
                    },
                }
            )
            return
        start = int(cursor[1:])
        page = {"resources": items[start : start + 2]}
        if start + 2 < len(items):
            page["nextCursor"] = f"p{start + 2}"
        elif "--endless" in sys.argv:
            page["nextCursor"] = "g0"
        send({"jsonrpc": "2.0", "id": rid, "result": page})
    elif method == "resources/templates/list" and "--no-templates" in sys.argv:
        send({"jsonrpc": "2.0", "id": rid, "error": {"code": -32601, "message": f"Method not found: {method}"}})
    elif method == "resources/templates/list":
        templates = [{"uriTemplate": "res://item/{id}", "name": "item", "mimeType": "text/plain"}]
        if "--bad-template" in sys.argv:
            templates.append({"uriTemplate": "res://bad/{a b}", "name": "bad"})
        send({"jsonrpc": "2.0", "id": rid, "result": {"resourceTemplates": templates}})
    elif method == "resources/read" and params.get("uri") == "res://never":
        sys.stderr.write(f"never answering read {rid}\n")  # a read that hangs (the client cancels it)
    elif method == "resources/read":
        result = read(str(params.get("uri")))
        if result is None:
            send(
                {
                    "jsonrpc": "2.0",
                    "id": rid,
                    "error": {"code": -32002, "message": "Resource not found", "data": {"uri": params.get("uri")}},
                }
            )
        else:
            send({"jsonrpc": "2.0", "id": rid, "result": result})
    elif method == "tools/list":
        send(
            {"jsonrpc": "2.0", "id": rid, "result": {"tools": [{"name": "mutate", "inputSchema": {"type": "object"}}]}}
        )
    elif method == "tools/call":
        state["mutated"] = True
        send({"jsonrpc": "2.0", "id": rid, "result": {"content": [{"type": "text", "text": "mutated"}]}})
        send({"jsonrpc": "2.0", "method": "notifications/resources/list_changed"})
    elif method == "ping":
        send({"jsonrpc": "2.0", "id": rid, "result": {}})
    elif rid is not None:
        send({"jsonrpc": "2.0", "id": rid, "error": {"code": -32601, "message": f"Method not found: {method}"}})


def main() -> None:
    for line in sys.stdin:
        try:
            message = json.loads(line)
        except ValueError:
            continue
        if isinstance(message, dict) and "method" in message:
            answer(message)


if __name__ == "__main__":
    main()
