"""The legacy ``initialize`` handshake: version negotiation, identity, capabilities.

Only the legacy era (2024-11-05 .. 2025-11-25) is spoken; a 2026-07-28
client's ``server/discover`` gets -32601, which tells it to fall back.
"""

from __future__ import annotations

from . import media
from .errors import INVALID_PARAMS, RpcError
from .tasks import CAPABILITY as TASKS_CAPABILITY
from .tasks import TASKS_VERSION

try:
    from mcp_inspector import __version__ as VERSION
except ImportError:  # pragma: no cover - package metadata missing
    VERSION = "0.0.0"

SUPPORTED_VERSIONS = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"]
LATEST_VERSION = SUPPORTED_VERSIONS[-1]

CAPABILITIES = {
    "tools": {"listChanged": True},
    "resources": {"subscribe": True, "listChanged": True},
    "prompts": {"listChanged": True},
    "logging": {},
    "completions": {},
}

INSTRUCTIONS = """# MCP Inspector Demo

A built-in server that exercises everything the inspector can show.

## Things to try
- **Structured output**: call `add` or `weather_report`; `broken_structured_output` fails its own schema.
- **Rich forms**: `create_ticket` uses enums, defaults, arrays, a nested object and formats.
- **Progress and cancellation**: run `long_running_task`, then cancel it half-way.
- **Tasks** (protocol 2025-11-25): `long_job` must run as a task: watch its status messages,
  poll it, cancel it, or set `ask: true` to answer a question half-way (input_required);
  `generate_report` runs either way.
- **Changing tool list**: `toggle_extra_tools` adds `weather_forecast` and changes `echo`.
- **Logging**: set a level, then run `emit_logs`; `flood_notifications` tests load.
- **Content types**: `all_content_types` returns text, image, audio, links and embedded resources.
- **Client features**: `ask_the_client` sends sampling, elicitation or roots requests.
- **Errors**: `failing_tool` returns `isError: true`.
- **Resources**: read `demo://readme`, subscribe, then call `touch_resource`.
- **Live updates**: subscribe to `demo://clock`; it sends `notifications/resources/updated`
  every second until you unsubscribe (read it to see the new time).
- **Templates**: `demo://search{?q,lang,limit}` and `demo://files{/path*}{#section}` use
  several RFC 6570 operators; complete `lang` (or `path`) first, then `q` (or `section`) narrows to it.
- **Prompts and completion**: `summarize` and `code_review`, with argument completion;
  `explain_error` narrows its `error` suggestions by the `language` you chose.
"""


def negotiate(requested: object) -> str:
    """Echo a supported version, otherwise offer our latest."""
    if not isinstance(requested, str):
        raise RpcError(
            INVALID_PARAMS,
            "initialize needs a string 'protocolVersion'",
            {"supported": SUPPORTED_VERSIONS, "requested": requested},
        )
    return requested if requested in SUPPORTED_VERSIONS else LATEST_VERSION


def server_info() -> dict:
    return {
        "name": "mcp-inspector-demo",
        "title": "MCP Inspector Demo",
        "version": VERSION,
        "description": "Demo server bundled with mcp-inspector.",
        "icons": [{"src": media.logo_data_uri(), "mimeType": "image/png", "sizes": ["32x32"]}],
    }


def capabilities(version: str) -> dict:
    """What we offer at ``version``: tasks only from 2025-11-25, where they exist."""
    if version >= TASKS_VERSION:
        return {**CAPABILITIES, "tasks": TASKS_CAPABILITY}
    return dict(CAPABILITIES)


def initialize_result(version: str) -> dict:
    return {
        "protocolVersion": version,
        "capabilities": capabilities(version),
        "serverInfo": server_info(),
        "instructions": INSTRUCTIONS,
    }
