"""Classified differences between two surface snapshots.

Kinds: ``breaking`` (a client that worked may now fail), ``unknown`` (changed, impact unknown:
never reported as compatible), ``compatible`` (additions, widenings) and ``cosmetic``
(descriptions, titles, server version). Schemas are compared after following ``$ref`` and
merging ``allOf`` with the form engine's resolver; ``anyOf``/``oneOf`` that differ are
compared member by member only when they are equal sets, else reported as unknown.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..schema.resolve import deref, merge_all_of

if TYPE_CHECKING:
    from ..session.tooldiff import ListDiff

KINDS = ("breaking", "unknown", "compatible", "cosmetic")
#: each kind's words, as ``diff`` prints its headings and the TUI marks its changes
TITLES = {
    "breaking": "breaking",
    "unknown": "changed, impact unknown",
    "compatible": "compatible",
    "cosmetic": "cosmetic",
}
#: the kinds that fail ``diff`` (exit 9) and make the TUI's notice a warning
FAILING = ("breaking", "unknown")
MAX_DEPTH = 32
ANNOTATION_WORDS = ("title", "description", "examples", "$comment", "default", "deprecated")
LOWER_BOUNDS = ("minimum", "exclusiveMinimum", "minLength", "minItems", "minProperties")
UPPER_BOUNDS = ("maximum", "exclusiveMaximum", "maxLength", "maxItems", "maxProperties")
# ToolAnnotations defaults (schema.ts): what an absent hint means
HINT_DEFAULTS = {"readOnlyHint": False, "destructiveHint": True, "idempotentHint": False, "openWorldHint": True}
HANDLED = {
    "type",
    "properties",
    "required",
    "enum",
    "const",
    "additionalProperties",
    "items",
    "$ref",
    "allOf",
    "$defs",
    "definitions",
    "$schema",
    "$id",
    *ANNOTATION_WORDS,
    *LOWER_BOUNDS,
    *UPPER_BOUNDS,
}


@dataclass(frozen=True, order=True)
class Change:
    kind: str
    path: str
    message: str

    def as_json(self) -> dict[str, str]:
        return {"kind": self.kind, "path": self.path, "message": self.message}


def _text(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


def _by(items: Any, field: str) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for item in items if isinstance(items, list) else []:
        if isinstance(item, dict) and isinstance(item.get(field), str):
            result[item[field]] = item
    return result


def _pointer(base: str, key: str) -> str:
    return base + "/" + key.replace("~", "~0").replace("/", "~1")


class _Differ:
    def __init__(self) -> None:
        self.changes: list[Change] = []

    def add(self, kind: str, path: str, message: str) -> None:
        self.changes.append(Change(kind, path, message))

    # -- the document ------------------------------------------------------------------

    def surface(self, old: dict[str, Any], new: dict[str, Any]) -> None:
        for key in ("serverInfo", "instructions"):
            if _text(old.get(key)) != _text(new.get(key)):
                self.add("cosmetic", "/" + key, f"{key} changed")
        if old.get("protocolVersion") != new.get("protocolVersion"):
            self.add(
                "unknown",
                "/protocolVersion",
                f"protocol version {old.get('protocolVersion')} -> {new.get('protocolVersion')}",
            )
        self.capabilities(old.get("capabilities") or {}, new.get("capabilities") or {})
        self.named(old, new, "tools", "name", "tool", self.tool)
        self.named(old, new, "prompts", "name", "prompt", self.prompt)
        self.named(old, new, "resourceTemplates", "uriTemplate", "resource template", self.plain)
        self.named(old, new, "resources", "uri", "resource", self.plain)

    def capabilities(self, old: dict[str, Any], new: dict[str, Any]) -> None:
        for name in sorted(set(old) | set(new)):
            path = _pointer("/capabilities", name)
            if name not in new:
                self.add("breaking", path, f"capability {name} removed")
            elif name not in old:
                self.add("compatible", path, f"capability {name} added")
            elif isinstance(old[name], dict) and isinstance(new[name], dict):
                for flag in sorted(set(old[name]) | set(new[name])):
                    was, now = old[name].get(flag), new[name].get(flag)
                    if _text(was) == _text(now):
                        continue
                    flag_path = _pointer(path, flag)
                    if was is True and now is not True:
                        self.add("breaking", flag_path, f"capability {name}.{flag} dropped")
                    elif now is True and was in (None, False):
                        self.add("compatible", flag_path, f"capability {name}.{flag} added")
                    else:
                        self.add("unknown", flag_path, f"capability {name}.{flag} changed")
            elif _text(old[name]) != _text(new[name]):
                self.add("unknown", path, f"capability {name} changed")

    def named(self, old: dict, new: dict, key: str, field: str, label: str, compare: Any) -> None:
        was, now = _by(old.get(key), field), _by(new.get(key), field)
        removed_kind = "unknown" if key == "resources" else "breaking"  # resource lists are often dynamic
        for name in sorted(set(was) | set(now)):
            path = _pointer("/" + key, name)
            if name not in now:
                self.add(removed_kind, path, f"{label} {name} removed")
            elif name not in was:
                self.add("compatible", path, f"{label} {name} added")
            else:
                compare(was[name], now[name], path, label, name)

    def texts(self, old: dict, new: dict, path: str, words: tuple[str, ...]) -> None:
        for word in words:
            if _text(old.get(word)) != _text(new.get(word)):
                self.add("cosmetic", _pointer(path, word), f"{word} changed")

    def plain(self, old: dict, new: dict, path: str, label: str, name: str) -> None:
        self.texts(old, new, path, ("title", "description", "annotations", "icons", "_meta"))
        for word in sorted((set(old) | set(new)) - {"title", "description", "annotations", "icons", "_meta"}):
            if _text(old.get(word)) != _text(new.get(word)):
                self.add("unknown", _pointer(path, word), f"{label} {name}: {word} changed")

    def tool(self, old: dict, new: dict, path: str, label: str, name: str) -> None:
        self.texts(old, new, path, ("title", "description", "icons", "_meta"))
        self.annotations(old.get("annotations") or {}, new.get("annotations") or {}, _pointer(path, "annotations"))
        input_path = _pointer(path, "inputSchema")
        self.schema(old.get("inputSchema"), new.get("inputSchema"), input_path, "input")
        out_path = _pointer(path, "outputSchema")
        if "outputSchema" in old and "outputSchema" not in new:
            self.add("breaking", out_path, "outputSchema removed")
        elif "outputSchema" in new and "outputSchema" not in old:
            self.add("compatible", out_path, "outputSchema added")
        elif "outputSchema" in old:
            self.schema(old["outputSchema"], new["outputSchema"], out_path, "output")
        self.execution(old.get("execution"), new.get("execution"), _pointer(path, "execution"))
        for word in sorted((set(old) | set(new)) - {"name", "title", "description", "icons", "_meta", "annotations"}):
            if word in ("inputSchema", "outputSchema", "execution"):
                continue
            if _text(old.get(word)) != _text(new.get(word)):
                self.add("unknown", _pointer(path, word), f"{word} changed")

    def execution(self, old: Any, new: Any, path: str) -> None:
        """``execution.taskSupport`` by effective value (absent means "forbidden", schema.ts): a
        client that called the tool plainly breaks when tasks become required; one that used tasks
        breaks when they become forbidden."""
        if _text(old) == _text(new):
            return
        if not isinstance(old or {}, dict) or not isinstance(new or {}, dict):
            self.add("unknown", path, "execution changed")
            return
        was, now = dict(old or {}), dict(new or {})
        was_support, now_support = was.pop("taskSupport", "forbidden"), now.pop("taskSupport", "forbidden")
        where = _pointer(path, "taskSupport")
        if was_support != now_support:
            allowed = {"forbidden": {"plain"}, "optional": {"plain", "task"}, "required": {"task"}}
            before, after = allowed.get(str(was_support)), allowed.get(str(now_support))
            move = f"taskSupport {_text(was_support)} -> {_text(now_support)}"
            if before is None or after is None:
                self.add("unknown", where, move)
            elif before <= after:
                self.add("compatible", where, move)
            else:
                self.add("breaking", where, move + " (a way of calling it is gone)")
        elif _text(was) == _text(now):  # only the default spelled out or left out
            self.add("cosmetic", where, f"taskSupport {_text(was_support)} either way (same effective value)")
        if _text(was) != _text(now):
            self.add("unknown", path, "execution changed")

    def annotations(self, old: dict, new: dict, path: str) -> None:
        if not isinstance(old, dict) or not isinstance(new, dict):
            if _text(old) != _text(new):
                self.add("unknown", path, "annotations changed")
            return
        for word in sorted(set(old) | set(new)):
            was, now = old.get(word), new.get(word)
            if _text(was) == _text(now):
                continue
            where = _pointer(path, word)
            if word in HINT_DEFAULTS:  # compared by effective value: absent means the spec's default
                default = HINT_DEFAULTS[word]
                was_on = was if isinstance(was, bool) else default
                now_on = now if isinstance(now, bool) else default
                if was_on == now_on:
                    self.add("cosmetic", where, f"{word}: {_text(was)} -> {_text(now)} (same effective value)")
                elif word == "destructiveHint" and now_on:
                    self.add("breaking", where, "destructiveHint added")
                elif word != "destructiveHint" and was_on and word != "openWorldHint":
                    self.add("breaking", where, f"{word} dropped")
                else:
                    self.add("compatible", where, f"{word}: {_text(was)} -> {_text(now)}")
            elif word == "title":
                self.add("cosmetic", where, "title changed")
            else:
                self.add("compatible", where, f"{word}: {_text(was)} -> {_text(now)}")

    def prompt(self, old: dict, new: dict, path: str, label: str, name: str) -> None:
        self.texts(old, new, path, ("title", "description", "icons", "_meta"))
        was, now = _by(old.get("arguments"), "name"), _by(new.get("arguments"), "name")
        for arg in sorted(set(was) | set(now)):
            where = _pointer(_pointer(path, "arguments"), arg)
            if arg not in now:
                self.add("breaking", where, f"argument {arg} removed")
            elif arg not in was:
                required = now[arg].get("required") is True
                self.add(
                    "breaking" if required else "compatible",
                    where,
                    f"{'required' if required else 'optional'} argument {arg} added",
                )
            else:
                if now[arg].get("required") is True and was[arg].get("required") is not True:
                    self.add("breaking", _pointer(where, "required"), f"argument {arg} made required")
                elif was[arg].get("required") is True and now[arg].get("required") is not True:
                    self.add("compatible", _pointer(where, "required"), f"argument {arg} made optional")
                self.texts(was[arg], now[arg], where, ("title", "description"))

    # -- schemas -------------------------------------------------------------------------

    def schema(self, old: Any, new: Any, path: str, direction: str) -> None:
        self.node(old, new, old, new, path, direction, 0)

    def node(self, old_root: Any, new_root: Any, old: Any, new: Any, path: str, direction: str, depth: int) -> None:
        if _text(old) == _text(new) and _text(old_root) == _text(new_root):
            return
        if depth > MAX_DEPTH:
            self.add("unknown", path, "schema nested too deep to compare")
            return
        old, problem_old = _flatten(old_root, old)
        new, problem_new = _flatten(new_root, new)
        if _text(old) == _text(new):
            return
        if problem_old or problem_new:
            self.add("unknown", path, f"schema changed; cannot resolve it: {problem_old or problem_new}")
            return
        if not isinstance(old, dict) or not isinstance(new, dict):
            if old is True or old == {}:
                self.add("breaking" if direction == "input" else "compatible", path, "schema narrowed from anything")
            else:
                self.add("unknown", path, "schema changed")
            return
        # narrowing the accepted inputs breaks callers; narrowing the outputs breaks nobody
        narrowed = "breaking" if direction == "input" else "compatible"
        widened = "compatible" if direction == "input" else "unknown"
        self.texts(old, new, path, ANNOTATION_WORDS)
        self.types(old, new, path, narrowed, widened)
        self.enums(old, new, path, narrowed, widened)
        for word in LOWER_BOUNDS + UPPER_BOUNDS:
            was, now = old.get(word), new.get(word)
            if _text(was) == _text(now):
                continue
            lower = word in LOWER_BOUNDS
            where = _pointer(path, word)
            if not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in (was, now) if v is not None):
                self.add("unknown", where, f"{word} changed")
            elif was is None:
                self.add(narrowed, where, f"{word} {now} added")
            elif now is None:
                self.add(widened, where, f"{word} {was} removed")
            elif (now > was) == lower:
                self.add(narrowed, where, f"{word} {'raised' if lower else 'lowered'} {was} -> {now}")
            else:
                self.add(widened, where, f"{word} {'lowered' if lower else 'raised'} {was} -> {now}")
        self.objects(old_root, new_root, old, new, path, direction, depth, narrowed, widened)
        if "items" in old or "items" in new:
            if isinstance(old.get("items", {}), dict) and isinstance(new.get("items", {}), dict):
                self.node(
                    old_root,
                    new_root,
                    old.get("items", {}),
                    new.get("items", {}),
                    _pointer(path, "items"),
                    direction,
                    depth + 1,
                )
            elif _text(old.get("items")) != _text(new.get("items")):
                self.add("unknown", _pointer(path, "items"), "items changed")
        for word in sorted((set(old) | set(new)) - HANDLED):
            if _text(old.get(word)) != _text(new.get(word)):
                self.add("unknown", _pointer(path, word), f"{word} changed")

    def types(self, old: dict, new: dict, path: str, narrowed: str, widened: str) -> None:
        was, now = _types(old.get("type")), _types(new.get("type"))
        if was == now:
            return
        where = _pointer(path, "type")
        if was is None or (now is not None and now < was):
            self.add(narrowed, where, f"type narrowed {_show(was)} -> {_show(now)}")
        elif now is None or now > was:
            self.add(widened, where, f"type widened {_show(was)} -> {_show(now)}")
        else:
            self.add(
                "breaking",
                where,
                f"type changed {_show(was)} -> {_show(now)}",
            )

    def enums(self, old: dict, new: dict, path: str, narrowed: str, widened: str) -> None:
        for word in ("enum", "const"):
            was, now = old.get(word), new.get(word)
            if _text(was) == _text(now):
                continue
            where = _pointer(path, word)
            was_set = (
                None
                if was is None
                else {_text(v) for v in (was if word == "enum" and isinstance(was, list) else [was])}
            )
            now_set = (
                None
                if now is None
                else {_text(v) for v in (now if word == "enum" and isinstance(now, list) else [now])}
            )
            if was_set is None:
                self.add(narrowed, where, f"{word} added")
            elif now_set is None:
                self.add(widened, where, f"{word} removed")
            elif was_set - now_set:
                gone = ", ".join(sorted(was_set - now_set))
                self.add(narrowed if not now_set - was_set else "breaking", where, f"{word} value(s) removed: {gone}")
            elif now_set - was_set:
                self.add(widened, where, f"{word} value(s) added: {', '.join(sorted(now_set - was_set))}")
            else:
                self.add("cosmetic", where, f"{word} order changed")

    def objects(
        self,
        old_root,
        new_root,
        old: dict,
        new: dict,
        path: str,
        direction: str,
        depth: int,
        narrowed: str,
        widened: str,
    ) -> None:
        was_props = old.get("properties") if isinstance(old.get("properties"), dict) else {}
        now_props = new.get("properties") if isinstance(new.get("properties"), dict) else {}
        was_req = set(old.get("required") or []) if isinstance(old.get("required", []), list) else set()
        now_req = set(new.get("required") or []) if isinstance(new.get("required", []), list) else set()
        props = _pointer(path, "properties")
        for name in sorted(set(was_props) | set(now_props) | was_req | now_req, key=str):
            name = str(name)
            where = _pointer(props, name)
            if name in was_props and name not in now_props:
                self.add(
                    "breaking",
                    where,
                    f"property {name} removed" if direction == "output" else f"argument {name} removed",
                )
                continue
            if name in now_props and name not in was_props:
                if direction == "input":
                    required = name in now_req
                    self.add(
                        "breaking" if required else "compatible",
                        where,
                        f"{'required' if required else 'optional'} argument {name} added",
                    )
                else:
                    self.add("compatible", where, f"property {name} added")
                continue
            if name in now_req and name not in was_req:
                self.add(narrowed if direction == "input" else "compatible", where, f"{name} made required")
            elif name in was_req and name not in now_req:
                self.add("compatible" if direction == "input" else "breaking", where, f"{name} made optional")
            if name in was_props:
                self.node(old_root, new_root, was_props[name], now_props[name], where, direction, depth + 1)
        was_extra, now_extra = old.get("additionalProperties"), new.get("additionalProperties")
        if _text(was_extra) != _text(now_extra):
            where = _pointer(path, "additionalProperties")
            if now_extra is False:
                self.add(narrowed, where, "additionalProperties: false added")
            elif was_extra is False and now_extra in (None, True):
                self.add(widened, where, "additionalProperties: false removed")
            elif isinstance(was_extra, dict) and isinstance(now_extra, dict):
                self.node(old_root, new_root, was_extra, now_extra, where, direction, depth + 1)
            else:
                self.add("unknown", where, "additionalProperties changed")


def _flatten(root: Any, schema: Any) -> tuple[Any, str | None]:
    schema, problem = deref(root, schema)
    if problem:
        return schema, problem
    if isinstance(schema, dict) and "allOf" in schema:
        merged, problems = merge_all_of(root, schema)
        if problems:
            return schema, problems[0]
        schema = merged
    return schema, None


def _types(value: Any) -> frozenset[str] | None:
    if value is None:
        return None
    items = value if isinstance(value, list) else [value]
    names = {str(v) for v in items}
    if "number" in names:
        names.add("integer")
    return frozenset(names)


def _show(types: frozenset[str] | None) -> str:
    return "any" if types is None else "|".join(sorted(types))


def diff(old: dict[str, Any], new: dict[str, Any]) -> list[Change]:
    """Every change from ``old`` to ``new``, sorted by kind (breaking first) then path."""
    differ = _Differ()
    differ.surface(old, new)
    order = {kind: index for index, kind in enumerate(KINDS)}
    return sorted(set(differ.changes), key=lambda c: (order[c.kind], c.path, c.message))


def diff_list(key: str, before: list[Any], after: list[Any]) -> list[Change]:
    """The changes between two versions of one list of the surface (``key``: tools, prompts,
    resources, resourceTemplates), as :func:`diff` classifies them in a whole snapshot: the TUI's
    list_changed and reconnect diffs."""
    return diff({key: before}, {key: after})


def classify(key: str, changed: ListDiff) -> list[Change]:
    """A list change as the session sees it (core/session/tooldiff's ListDiff: list_changed, a
    reconnect, a ``watch`` restart, a recording), classified as :func:`diff` classifies it. Only the
    items added, removed and changed are walked, not the whole list again."""
    before = list(changed.removed) + [change.before for change in changed.changed]
    after = list(changed.added) + [change.after for change in changed.changed]
    return diff_list(key, before, after)


def breaks(changes: list[Change]) -> bool:
    """A change that breaks a client, or whose impact is unknown (what makes ``diff`` exit 9)."""
    return any(change.kind in FAILING for change in changes)


def counts(changes: list[Change]) -> dict[str, int]:
    """How many of each kind, every kind present (``diff --json``'s ``counts``)."""
    return {kind: sum(1 for c in changes if c.kind == kind) for kind in KINDS}


def counts_text(changes: list[Change]) -> str:
    """``2 breaking, 1 compatible``: how many of each kind, in :data:`TITLES`' words."""
    counts = [(kind, sum(1 for c in changes if c.kind == kind)) for kind in KINDS]
    return ", ".join(f"{count} {TITLES[kind]}" for kind, count in counts if count) or "no changes"
