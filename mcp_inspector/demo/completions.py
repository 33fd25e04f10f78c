"""``completion/complete``: suggestions for prompt arguments and the note template."""

from __future__ import annotations

from .errors import INVALID_PARAMS, RpcError
from .prompts import PROMPTS
from .resources import NOTE_TEMPLATE, ResourceStore

STYLES = ["concise", "detailed", "bullet-points", "casual", "formal", "eli5", "executive"]
LANGUAGES = [
    "python", "javascript", "typescript", "rust", "go", "java", "kotlin",
    "c", "cpp", "csharp", "ruby", "swift", "php", "scala", "haskell",
]
MAX_VALUES = 100  # the spec caps a completion response at 100 values


def complete(params: dict, resources: ResourceStore) -> dict:
    ref = params.get("ref")
    argument = params.get("argument")
    if not isinstance(ref, dict) or not isinstance(argument, dict):
        raise RpcError(INVALID_PARAMS, "completion/complete needs 'ref' and 'argument' objects")
    name, value = argument.get("name"), argument.get("value", "")
    if not isinstance(value, str):
        raise RpcError(INVALID_PARAMS, "argument.value must be a string")
    if ref.get("type") == "ref/prompt":
        if not any(p["name"] == ref.get("name") for p in PROMPTS):
            raise RpcError(INVALID_PARAMS, f"Unknown prompt: {ref.get('name')}")
        candidates = {"style": STYLES, "language": LANGUAGES}.get(name, [])
    elif ref.get("type") == "ref/resource":
        if ref.get("uri") != NOTE_TEMPLATE:
            raise RpcError(INVALID_PARAMS, f"Unknown resource template: {ref.get('uri')}")
        candidates = resources.note_ids() if name == "note_id" else []
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
