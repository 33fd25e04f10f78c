"""The demo's resources: static ones, a clock, three templates and subscriptions.

``touch`` bumps a resource's revision (visible in its contents) so a
subscribed client can see ``notifications/resources/updated`` lead to new data.
``demo://clock`` changes by itself: while it is subscribed the server's
ticker (server.py) sends ``notifications/resources/updated`` every tick.
The multi-operator templates live in templates.py.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from urllib.parse import unquote

from . import media, templates
from .errors import RESOURCE_NOT_FOUND, RpcError

README_URI = "demo://readme"
CONFIG_URI = "demo://config.json"
LOGO_URI = "demo://logo.png"
CLOCK_URI = "demo://clock"
NOTE_PREFIX = "demo://notes/"
NOTE_TEMPLATE = NOTE_PREFIX + "{note_id}"
SUGGESTED_NOTE_IDS = ["welcome", "todo", "ideas", "meeting-2025-11-25", "1", "2", "3"]

README_TEXT = """# MCP Inspector demo server

This resource is plain Markdown served as `text/markdown`.

- Subscribe to it, then call the `touch_resource` tool with `demo://readme`.
- Read `demo://notes/<anything>` to use the resource template.
- `demo://logo.png` is a binary (blob) resource.
- Subscribe to `demo://clock`: it changes by itself, and the server sends
  `notifications/resources/updated` every second until you unsubscribe.
- Templates with several RFC 6570 operators: `demo://search{?q,lang,limit}` and
  `demo://files{/path*}{#section}`; completion of `q` depends on `lang`, and of
  `section` on `path`.
"""


def _static_resources() -> list[dict]:
    return [
        {
            "uri": README_URI,
            "name": "readme",
            "title": "Demo README",
            "description": "What this server is for, in Markdown.",
            "mimeType": "text/markdown",
            "annotations": {"audience": ["user", "assistant"], "priority": 0.9},
        },
        {
            "uri": CONFIG_URI,
            "name": "config",
            "title": "Demo configuration",
            "description": "A small JSON document, handy for the JSON viewer.",
            "mimeType": "application/json",
        },
        {
            "uri": LOGO_URI,
            "name": "logo",
            "title": "Demo logo",
            "description": "A 32x32 PNG generated in code (binary resource).",
            "mimeType": "image/png",
            "size": len(media.logo_png()),
            "annotations": {"audience": ["user"], "priority": 0.2},
        },
        {
            "uri": CLOCK_URI,
            "name": "clock",
            "title": "Ticking clock",
            "description": "Changes by itself: subscribe and the server sends notifications/resources/updated "
            "every tick (1 s by default) until you unsubscribe. Read it for the current time and tick count.",
            "mimeType": "application/json",
        },
    ]


TEMPLATES = [
    {
        "uriTemplate": NOTE_TEMPLATE,
        "name": "note",
        "title": "Note by id",
        "description": "A generated note for any id; try completion on {note_id}.",
        "mimeType": "text/plain",
    },
    *templates.TEMPLATES,
]


class ResourceStore:
    """Lists, reads and tracks subscriptions and revisions of demo resources."""

    def __init__(self) -> None:
        self.subscriptions: set[str] = set()
        self.revisions: dict[str, int] = {}
        self.ticks = 0  # updates of demo://clock sent so far

    def list(self) -> list[dict]:
        return _static_resources()

    def templates(self) -> list[dict]:
        return [dict(t) for t in TEMPLATES]

    def exists(self, uri: object) -> bool:
        if not isinstance(uri, str):
            return False
        return (
            uri in (README_URI, CONFIG_URI, LOGO_URI, CLOCK_URI) or _note_id(uri) is not None or templates.matches(uri)
        )

    def require(self, uri: object) -> str:
        """Return ``uri`` or raise the legacy "resource not found" error."""
        if not isinstance(uri, str):
            raise RpcError(-32602, "Invalid params: 'uri' must be a string")
        if not self.exists(uri):
            raise RpcError(RESOURCE_NOT_FOUND, "Resource not found", {"uri": uri})
        return uri

    def read(self, uri: object) -> list[dict]:
        uri = self.require(uri)
        revision = self.revisions.get(uri, 0)
        if uri == README_URI:
            text = README_TEXT + (f"\n_Touched {revision} time(s)._\n" if revision else "")
            return [{"uri": uri, "mimeType": "text/markdown", "text": text}]
        if uri == CONFIG_URI:
            config = {
                "server": "mcp-inspector-demo",
                "revision": revision,
                "features": ["tools", "resources", "prompts", "logging", "completions"],
                "limits": {"max_steps": 1000, "flood_max": 100000},
                "nested": {"deeper": {"deepest": [1, 2.5, True, None, "text"]}},
            }
            return [{"uri": uri, "mimeType": "application/json", "text": json.dumps(config, indent=2)}]
        if uri == LOGO_URI:
            return [{"uri": uri, "mimeType": "image/png", "blob": media.b64(media.logo_png())}]
        if uri == CLOCK_URI:
            now = datetime.now(UTC)
            clock = {
                "time": now.isoformat(timespec="milliseconds").replace("+00:00", "Z"),
                "ticks": self.ticks,
                "subscribed": uri in self.subscriptions,
                "revision": revision,
            }
            return [{"uri": uri, "mimeType": "application/json", "text": json.dumps(clock, indent=2)}]
        contents = templates.read(uri)
        if contents is not None:
            return contents
        note_id = _note_id(uri)
        text = f"Note {note_id!r}\n\nGenerated from the template {NOTE_TEMPLATE}.\nRevision: {revision}\n"
        return [{"uri": uri, "mimeType": "text/plain", "text": text}]

    def subscribe(self, uri: object) -> None:
        self.subscriptions.add(self.require(uri))

    def unsubscribe(self, uri: object) -> None:
        if isinstance(uri, str):
            self.subscriptions.discard(uri)

    def touch(self, uri: str) -> int:
        """Bump and return the revision of ``uri`` (which must exist)."""
        self.revisions[uri] = self.revisions.get(uri, 0) + 1
        return self.revisions[uri]

    def note_ids(self) -> list[str]:
        """Suggested ids for completion: the fixed ones plus any touched notes."""
        seen = [i for uri in self.revisions if (i := _note_id(uri)) is not None]
        return list(dict.fromkeys(SUGGESTED_NOTE_IDS + seen))


def _note_id(uri: str) -> str | None:
    if not uri.startswith(NOTE_PREFIX):
        return None
    note_id = unquote(uri[len(NOTE_PREFIX) :])
    return note_id if note_id and "/" not in note_id else None
