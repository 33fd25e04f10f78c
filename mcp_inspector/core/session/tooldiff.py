"""What changed between two tool lists (or prompt/resource lists).

Used when ``notifications/*/list_changed`` arrives: the new list is compared
with the old one by name, so the UI can show added, removed and modified items
and, for a modified one, which fields changed with a readable diff.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

COMPARED_FIELDS = (
    "title",
    "description",
    "inputSchema",
    "outputSchema",
    "annotations",
    "icons",
    "execution",
    "_meta",
    "uri",
    "mimeType",
    "arguments",
    "uriTemplate",
)


@dataclass(slots=True)
class ItemChange:
    name: str
    fields: list[str]  # which fields differ
    before: dict[str, Any]
    after: dict[str, Any]

    def field_diff(self, name: str) -> str:
        """A unified diff of one field, pretty-printed as JSON."""
        import difflib  # only when a diff is shown: not on every cold command

        old = _pretty(self.before.get(name))
        new = _pretty(self.after.get(name))
        return "\n".join(
            difflib.unified_diff(old.splitlines(), new.splitlines(), f"{name} (before)", f"{name} (after)", lineterm="")
        )

    def describe(self) -> str:
        return f"{self.name}: " + ", ".join(self.fields) + " changed"


@dataclass(slots=True)
class ListDiff:
    added: list[dict[str, Any]] = field(default_factory=list)
    removed: list[dict[str, Any]] = field(default_factory=list)
    changed: list[ItemChange] = field(default_factory=list)
    duplicates: list[str] = field(default_factory=list)  # names the server listed more than once

    @property
    def empty(self) -> bool:
        return not (self.added or self.removed or self.changed)

    def summary(self) -> str:
        if self.empty:
            return "no changes"
        parts = []
        if self.added:
            parts.append("added " + ", ".join(item_key(t) for t in self.added))
        if self.removed:
            parts.append("removed " + ", ".join(item_key(t) for t in self.removed))
        if self.changed:
            parts.append("changed " + "; ".join(c.describe() for c in self.changed))
        return "; ".join(parts)


def item_key(item: dict[str, Any]) -> str:
    """Tools and prompts are keyed by name, resources by uri, templates by uriTemplate.

    A resource's name is only a label (two resources may share it), so uri wins.
    """
    for key in ("uri", "uriTemplate", "name"):
        value = item.get(key)
        if isinstance(value, str):
            return value
    return json.dumps(item, sort_keys=True)[:80]


def find_duplicates(items: list[dict[str, Any]]) -> list[str]:
    seen: set[str] = set()
    dups: list[str] = []
    for item in items:
        key = item_key(item)
        if key in seen and key not in dups:
            dups.append(key)
        seen.add(key)
    return dups


def diff_items(before: list[dict[str, Any]], after: list[dict[str, Any]]) -> ListDiff:
    old = {item_key(t): t for t in before}
    new = {item_key(t): t for t in after}
    result = ListDiff(duplicates=find_duplicates(after))
    for name, item in new.items():
        if name not in old:
            result.added.append(item)
    for name, item in old.items():
        if name not in new:
            result.removed.append(item)
    for name, item in new.items():
        previous = old.get(name)
        if previous is None or previous == item:
            continue
        keys = [k for k in COMPARED_FIELDS if previous.get(k) != item.get(k)]
        keys += sorted(
            k for k in (previous.keys() | item.keys()) - set(COMPARED_FIELDS) if previous.get(k) != item.get(k)
        )
        result.changed.append(ItemChange(name, keys, previous, item))
    return result


def _pretty(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    return json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False)
