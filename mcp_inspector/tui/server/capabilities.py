"""Server capabilities explained in words.

Capabilities are declarations ("I may send tool list changes"), not data, so
the overview shows each one with what it promises. Unknown keys are kept and
shown raw so nothing the server said is hidden.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

# (capability, sub-key or None) -> what the declaration means
EXPLANATIONS: dict[tuple[str, str | None], str] = {
    ("tools", None): "the server offers tools (tools/list, tools/call)",
    ("tools", "listChanged"): "the server announces tool list changes (notifications/tools/list_changed)",
    ("prompts", None): "the server offers prompt templates (prompts/list, prompts/get)",
    ("prompts", "listChanged"): "the server announces prompt list changes (notifications/prompts/list_changed)",
    ("resources", None): "the server offers resources to read (resources/list, resources/read)",
    ("resources", "subscribe"): "clients may subscribe to a resource and get notifications/resources/updated",
    ("resources", "listChanged"): "the server announces resource list changes (notifications/resources/list_changed)",
    ("logging", None): "the server sends log messages (notifications/message); the level is set with logging/setLevel",
    ("completions", None): "the server suggests argument values (completion/complete)",
    ("experimental", None): "non-standard features, named by the server",
    ("tasks", None): "the server can run requests as tasks (asynchronous, polled for results)",
    ("tasks", "list"): "clients may list the server's tasks (tasks/list)",
    ("tasks", "cancel"): "clients may cancel a task (tasks/cancel)",
    ("tasks", "requests"): "which requests may be run as tasks",
}


@dataclass(frozen=True)
class CapabilityLine:
    path: str  # e.g. "tools.listChanged"
    value: Any
    explanation: str | None  # None: unknown to us, shown raw
    depth: int = 0


def _raw(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def explain_capabilities(capabilities: dict[str, Any]) -> list[CapabilityLine]:
    """One line per declared capability and per known sub-key, in declaration order."""
    lines: list[CapabilityLine] = []
    for name, value in capabilities.items():
        known = (name, None) in EXPLANATIONS
        lines.append(CapabilityLine(name, value, EXPLANATIONS.get((name, None)), 0))
        if not isinstance(value, dict):
            continue
        for key, sub in value.items():
            path = f"{name}.{key}"
            if name == "experimental":
                lines.append(CapabilityLine(path, sub, "experimental feature declared by the server", 1))
                continue
            explanation = EXPLANATIONS.get((name, key)) if known else None
            if explanation is not None and sub is False:
                explanation = f"declared false, so not offered ({explanation})"
            lines.append(CapabilityLine(path, sub, explanation, 1))
    return lines


def render_value(value: Any) -> str:
    if isinstance(value, dict) and not value:
        return "{}"
    if isinstance(value, (dict, list)):
        return _raw(value)
    return json.dumps(value)
