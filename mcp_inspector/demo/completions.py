"""``completion/complete``: suggestions for prompt arguments and template variables.

Some suggestions depend on the other arguments already filled in, which the
client sends as ``context.arguments``: the explain_error prompt's ``error``
narrows by ``language``, demo://search's ``q`` by ``lang`` and demo://files'
``section`` by ``path``.
"""

from __future__ import annotations

from . import catalog, templates
from .catalog import LANGUAGES, STYLES  # noqa: F401 - re-exported (older imports)
from .errors import INVALID_PARAMS, RpcError
from .prompts import PROMPTS
from .resources import NOTE_TEMPLATE, ResourceStore

MAX_VALUES = 100  # the spec caps a completion response at 100 values


def complete(params: dict, resources: ResourceStore) -> dict:
    ref = params.get("ref")
    argument = params.get("argument")
    if not isinstance(ref, dict) or not isinstance(argument, dict):
        raise RpcError(INVALID_PARAMS, "completion/complete needs 'ref' and 'argument' objects")
    name, value = argument.get("name"), argument.get("value", "")
    if not isinstance(value, str):
        raise RpcError(INVALID_PARAMS, "argument.value must be a string")
    context = _context_arguments(params.get("context"))
    if ref.get("type") == "ref/prompt":
        if not any(p["name"] == ref.get("name") for p in PROMPTS):
            raise RpcError(INVALID_PARAMS, f"Unknown prompt: {ref.get('name')}")
        candidates = _prompt_candidates(ref["name"], name, context)
    elif ref.get("type") == "ref/resource":
        uri = ref.get("uri")
        if uri == NOTE_TEMPLATE:
            candidates = resources.note_ids() if name == "note_id" else []
        else:
            candidates = templates.completion_candidates(uri, name, context)
            if candidates is None:
                raise RpcError(INVALID_PARAMS, f"Unknown resource template: {uri}")
    else:
        raise RpcError(INVALID_PARAMS, f"Unknown ref type: {ref.get('type')}")
    matches = [c for c in candidates if c.lower().startswith(value.lower())]
    return {
        "completion": {
            "values": matches[:MAX_VALUES],
            "total": len(matches),
            "hasMore": len(matches) > MAX_VALUES,
        }
    }


def _prompt_candidates(prompt: str, name: object, context: dict[str, str]) -> list[str]:
    if name == "style":
        return STYLES
    if name == "language":
        return LANGUAGES
    if prompt == "explain_error" and name == "error":
        return catalog.errors_for(context.get("language"))
    return []


def _context_arguments(context: object) -> dict[str, str]:
    """``context.arguments`` as a dict of strings (absent -> empty; wrong shape -> -32602)."""
    if context is None:
        return {}
    arguments = context.get("arguments") if isinstance(context, dict) else None
    if isinstance(context, dict) and arguments is None:
        return {}
    if not isinstance(arguments, dict) or not all(isinstance(v, str) for v in arguments.values()):
        raise RpcError(INVALID_PARAMS, "context.arguments must be an object of strings")
    return arguments
