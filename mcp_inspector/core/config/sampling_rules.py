"""Saved auto-answers to ``sampling/createMessage``, per server, so that a server's sampling path
can be exercised again and again without typing the reply each time.

The file is ``$XDG_CONFIG_HOME/mcp-inspector/sampling-rules.json`` (written atomically, 0600)::

    {"version": 1, "servers": {
        "cmd:[\\"python\\", \\"server.py\\"]": [
            {"match": "haiku", "reply": "An old silent pond", "model": "canned", "stopReason": "endTurn"},
            {"file": "~/answers/long.txt"}
        ]}}

A rule answers a request of its server when its ``match`` (optional) is part of the text of the
last user message; the first rule that matches wins. ``reply`` is the text sent, or ``file``
names a file read at each answer (edit it between runs); ``model`` and ``stopReason`` are sent as
given (defaults ``mcp-inspector (rule)`` and ``endTurn``). A broken file never stops anything:
:meth:`SamplingRules.load` keeps no rules and says why in ``problem``.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..base.files import FileReadError, read_bounded, write_atomic

FILE_NAME = "sampling-rules.json"
MAX_RULES_FILE = 4 * 1024 * 1024
MAX_REPLY_FILE = 4 * 1024 * 1024
DEFAULT_MODEL = "mcp-inspector (rule)"
STOP_REASONS = ("endTurn", "stopSequence", "maxTokens", "toolUse")


class SamplingRuleError(ValueError):
    """A rule that cannot answer (its file is missing, unreadable, not text)."""


def rules_path() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return Path(base) / "mcp-inspector" / FILE_NAME


@dataclass(frozen=True)
class SamplingRule:
    server: str  # the server's key (ServerSpec.key)
    reply: str | None = None
    file: str | None = None
    match: str | None = None  # part of the last user message's text; None: any request
    model: str = DEFAULT_MODEL
    stop_reason: str = "endTurn"

    def __post_init__(self) -> None:
        if (self.reply is None) == (self.file is None):
            raise ValueError("a sampling rule has either a reply or a file")

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {}
        if self.match:
            data["match"] = self.match
        if self.file is not None:
            data["file"] = self.file
        else:
            data["reply"] = self.reply
        data["model"] = self.model
        data["stopReason"] = self.stop_reason
        return data

    @classmethod
    def from_json(cls, server: str, data: Any) -> SamplingRule:
        if not isinstance(data, dict):
            raise ValueError("a rule must be an object")
        reply, file, match = data.get("reply"), data.get("file"), data.get("match")
        model, stop = data.get("model", DEFAULT_MODEL), data.get("stopReason", "endTurn")
        for name, value in (("reply", reply), ("file", file), ("match", match)):
            if value is not None and not isinstance(value, str):
                raise ValueError(f"{name} must be a string")
        if not isinstance(model, str) or not isinstance(stop, str):
            raise ValueError("model and stopReason must be strings")
        return cls(server, reply, file, match or None, model, stop)

    def describe(self) -> str:
        """One line: when it answers and with what."""
        when = f"when the last user message holds {self.match!r}" if self.match else "every request"
        what = f"the file {self.file}" if self.file is not None else repr(_cut(self.reply or "", 60))
        return f"{when}: {what} (model {self.model}, {self.stop_reason})"

    def result(self) -> dict[str, Any]:
        """The ``CreateMessageResult`` this rule answers with (a file is read now)."""
        text = self.reply if self.file is None else read_reply_file(self.file)
        return {
            "role": "assistant",
            "content": {"type": "text", "text": text or ""},
            "model": self.model,
            "stopReason": self.stop_reason,
        }


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def read_reply_file(path: str) -> str:
    expanded = os.path.expanduser(path)
    try:
        data = read_bounded(expanded, MAX_REPLY_FILE)
    except FileReadError as exc:
        raise SamplingRuleError(
            exc.words(
                missing=f"the reply file {path} does not exist",
                directory=f"the reply file {path} is a directory",
                too_large=f"the reply file {path} is larger than {MAX_REPLY_FILE // (1024 * 1024)} MiB",
                unreadable=f"cannot read the reply file {path}: {exc.reason}",
            )
        ) from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise SamplingRuleError(f"the reply file {path} is not UTF-8 text") from None


def message_text(message: Any) -> str:
    """The text blocks of a SamplingMessage (content a block or a list of blocks), joined."""
    if not isinstance(message, dict):
        return ""
    content = message.get("content")
    blocks = content if isinstance(content, list) else [content]
    return "\n".join(
        block["text"]
        for block in blocks
        if isinstance(block, dict) and block.get("type") == "text" and isinstance(block.get("text"), str)
    )


def last_user_text(params: Any) -> str:
    """The text of the last ``user`` message of a ``sampling/createMessage`` request."""
    messages = params.get("messages") if isinstance(params, dict) else None
    for message in reversed(messages if isinstance(messages, list) else []):
        if isinstance(message, dict) and message.get("role") == "user":
            return message_text(message)
    return ""


class SamplingRules:
    """The rules file: load, find the rule for a request, add, remove, save."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path if path is not None else rules_path()
        self.rules: list[SamplingRule] = []
        self.problem: str | None = None  # why the file was not read (the rules are then empty)

    @classmethod
    def load(cls, path: Path | None = None) -> SamplingRules:
        rules = cls(path)
        try:
            data = read_bounded(rules.path, MAX_RULES_FILE)
        except FileReadError as exc:
            if exc.kind != "missing":
                rules.problem = f"{rules.path}: {exc.reason or exc.kind}"
            return rules
        try:
            document = json.loads(data)
            servers = document.get("servers") if isinstance(document, dict) else None
            if not isinstance(servers, dict):
                raise ValueError('no "servers" object')
            for server, entries in servers.items():
                if not isinstance(entries, list):
                    raise ValueError(f"the rules of {server} are not a list")
                rules.rules.extend(SamplingRule.from_json(server, entry) for entry in entries)
        except (ValueError, UnicodeDecodeError) as exc:
            rules.rules = []
            rules.problem = f"{rules.path} is not a sampling rules file ({exc}): no rule is used until it is fixed"
        return rules

    def for_server(self, server: str) -> list[SamplingRule]:
        return [rule for rule in self.rules if rule.server == server]

    def find(self, server: str, params: Any) -> SamplingRule | None:
        """The first rule of ``server`` whose match is in the last user message (or has none)."""
        text = last_user_text(params)
        for rule in self.for_server(server):
            if rule.match is None or rule.match in text:
                return rule
        return None

    def add(self, rule: SamplingRule) -> None:
        """Add a rule (one with the same server and match replaces it) and save."""
        self.rules = [r for r in self.rules if (r.server, r.match) != (rule.server, rule.match)]
        self.rules.append(rule)
        self.save()

    def remove(self, rule: SamplingRule) -> None:
        self.rules = [r for r in self.rules if r != rule]
        self.save()

    def save(self) -> None:
        """Write the file atomically (0600); a file that could not be read is not overwritten."""
        if self.problem is not None:
            raise SamplingRuleError(f"not saved: {self.problem}")
        servers: dict[str, list[dict[str, Any]]] = {}
        for rule in self.rules:
            servers.setdefault(rule.server, []).append(rule.to_json())
        self.path.parent.mkdir(parents=True, exist_ok=True)
        data = json.dumps({"version": 1, "servers": servers}, indent=2, ensure_ascii=False) + "\n"
        write_atomic(self.path, data.encode("utf-8"), prefix=".sampling-rules-")
