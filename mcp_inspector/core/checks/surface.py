"""Rules on what a server listed: its tools (names, descriptions, schemas, annotations, the
token cost of the list) and resource templates. Pure functions of the lists: the check command
runs them on its listing, a front end can run them on any list it holds.
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from collections.abc import Iterator
from functools import lru_cache
from typing import Any

from ..protocol.uri_template import expression_problem
from .catalog import finding
from .client_compat import client_findings
from .model import Finding, Severity, cut
from .regex_syntax import pattern_problem

TOOL_NAME = re.compile(r"[A-Za-z0-9_.\-]{1,128}")  # SEP-986 (our own pattern, not a server's)
DEFAULT_TOKEN_BUDGET = 15_000
BIGGEST_NAMED = 5
MAX_SCHEMA_NODES = 10_000  # a schema walked for patterns stops there (a server's schema can be huge)
MAX_VALIDATED = 1_000  # tools whose schemas are validated against their metaschema (0.7-4 ms each)
TOKEN_METHOD = (
    "estimate: 1 token per 4 characters of each word or number, 1 per punctuation mark or other "
    "character, over the compact JSON of {name, description, input_schema} (no tokenizer is available offline)"
)


def _schema(tool: dict[str, Any], key: str) -> Any:
    return tool.get(key)


def tool_findings(tools: list[dict[str, Any]], token_budget: int = DEFAULT_TOKEN_BUDGET) -> list[Finding]:
    """Every tool rule over one listing."""
    found: list[Finding] = []
    counts = Counter(tool.get("name") for tool in tools if isinstance(tool.get("name"), str))
    for name, count in counts.items():
        if count > 1:
            found.append(
                finding(
                    "tool-name-duplicate",
                    f"{count} tools are named {name!r}",
                    where=f"tool {name}",
                    evidence=f'"name": {json.dumps(name)} ×{count}',
                )
            )
    for index, tool in enumerate(tools):
        found.extend(_tool(tool, validate=index < MAX_VALIDATED))
    found.extend(client_findings(tools))  # client_compat.py: per-client limits, as data
    if len(tools) > MAX_VALIDATED:
        found.append(
            finding(
                "input-schema-invalid",
                f"the schemas of the tools past the first {MAX_VALIDATED:,} (of {len(tools):,}) were not "
                "validated against their metaschema (time)",
                severity=Severity.INFO,
                where="tools/list",
            )
        )
    found.extend(token_findings(tools, token_budget))
    return found


def _tool(tool: dict[str, Any], validate: bool = True) -> Iterator[Finding]:
    name = tool.get("name")
    where = f"tool {name}" if isinstance(name, str) else "a tool without a name"
    if not isinstance(name, str) or not TOOL_NAME.fullmatch(name):
        shown = json.dumps(name, ensure_ascii=False) if not isinstance(name, str) else repr(name)
        why = (
            "not a string"
            if not isinstance(name, str)
            else "empty"
            if not name
            else f"{len(name)} characters"
            if len(name) > 128
            else "has characters outside A-Z a-z 0-9 _ . -: "
            + repr("".join(sorted({c for c in name if not TOOL_NAME.fullmatch(c)}))[:20])
        )
        why = why if why.startswith("has ") else f"is {why}"
        yield finding("tool-name-format", f"tool name {cut(shown, 80)} {why}", where=where, evidence=cut(shown, 140))
    description = tool.get("description")
    if not isinstance(description, str) or not description.strip():
        what = "no description" if description is None else "an empty description"
        yield finding(
            "tool-description",
            f"the tool has {what}",
            where=where,
            evidence=f'"description": {cut(json.dumps(description), 60)}',
        )
    schema = tool.get("inputSchema")
    if not isinstance(schema, dict) or schema.get("type") != "object":
        what = (
            "no inputSchema"
            if schema is None
            else f"an inputSchema that is not an object ({type(schema).__name__})"
            if not isinstance(schema, dict)
            else f"an inputSchema of type {json.dumps(schema.get('type'))}"
            if "type" in schema
            else 'an inputSchema without "type": "object"'
        )
        yield finding("input-schema-type", f"the tool has {what}", where=where, evidence=cut(json.dumps(schema), 200))
    if isinstance(schema, dict) and validate:
        for problem, severity_warning in schema_problems(schema):
            yield finding(
                "input-schema-invalid",
                f"inputSchema: {problem}",
                where=where,
                evidence=cut(json.dumps(schema, ensure_ascii=False), 200),
                **({"severity": severity_warning} if severity_warning else {}),
            )
    if isinstance(schema, dict):
        properties = schema.get("properties")
        required = schema.get("required")
        if isinstance(required, list):
            defined = properties if isinstance(properties, dict) else {}
            missing = [item for item in required if isinstance(item, str) and item not in defined]
            if missing:
                yield finding(
                    "input-schema-required",
                    f"required names {', '.join(repr(m) for m in missing[:5])}, not defined under properties",
                    where=where,
                    evidence=f'"required": {cut(json.dumps(required), 120)}',
                )
    output = tool.get("outputSchema")
    if output is not None:
        if not isinstance(output, dict) or output.get("type") != "object":
            shown = output.get("type") if isinstance(output, dict) else type(output).__name__
            yield finding(
                "output-schema-invalid",
                f"outputSchema is not of type object ({json.dumps(shown)})",
                where=where,
                evidence=cut(json.dumps(output), 200),
            )
        if isinstance(output, dict) and validate:
            for problem, severity in schema_problems(output):
                yield finding(
                    "output-schema-invalid",
                    f"outputSchema: {problem}",
                    where=where,
                    evidence=cut(json.dumps(output, ensure_ascii=False), 200),
                    **({"severity": severity} if severity else {}),
                )
    yield from _annotations(tool.get("annotations"), where)


def _annotations(annotations: Any, where: str) -> Iterator[Finding]:
    if annotations is None:
        return
    if not isinstance(annotations, dict):
        yield finding(
            "tool-annotations", "annotations is not an object", where=where, evidence=cut(json.dumps(annotations), 100)
        )
        return
    hints = ("readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint")
    for hint in hints:
        if hint in annotations and not isinstance(annotations[hint], bool):
            yield finding(
                "tool-annotations",
                f"{hint} is {json.dumps(annotations[hint])}, not a boolean",
                where=where,
                evidence=cut(json.dumps(annotations), 160),
            )
    if annotations.get("readOnlyHint") is True and annotations.get("destructiveHint") is True:
        yield finding(
            "tool-annotations",
            "readOnlyHint and destructiveHint are both true (a read-only tool destroys nothing)",
            where=where,
            evidence=cut(json.dumps(annotations), 160),
        )


def schema_problems(schema: dict[str, Any]) -> list[tuple[str, Any]]:
    """Why ``schema`` is not a valid JSON Schema of its ``$schema`` dialect (2020-12 by default):
    the metaschema's verdict (without its ``format: regex`` check, which would compile the server's
    patterns with Python's re), then each ``pattern`` and ``patternProperties`` key, compiled by
    the safe regex engine. Pairs of (problem, severity or None for the rule's). Schemas many tools
    share are judged once (the verdict is cached by the schema's text)."""
    try:
        text = json.dumps(schema, sort_keys=True)
    except (TypeError, ValueError):
        return _schema_problems(schema)
    return list(_cached_problems(text))


@lru_cache(maxsize=4096)
def _cached_problems(text: str) -> tuple[tuple[str, Any], ...]:
    return tuple(_schema_problems(json.loads(text)))


@lru_cache(maxsize=16)
def _meta_validator(cls: Any) -> Any:
    """One metaschema validator per dialect: its $ref resolutions are cached inside (~5x faster
    than a new one per schema)."""
    return cls(cls.META_SCHEMA)


def _schema_problems(schema: dict[str, Any]) -> list[tuple[str, Any]]:
    import jsonschema
    import jsonschema.validators

    cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    found: list[tuple[str, Any]] = []
    try:
        errors = sorted(_meta_validator(cls).iter_errors(schema), key=lambda e: list(e.absolute_path))[:3]
    except Exception as exc:  # noqa: BLE001 - a metaschema $ref the library cannot resolve: no verdict
        errors = []
        found.append((f"cannot be checked against its $schema ({exc.__class__.__name__})", None))
    for error in errors:
        path = "/".join(str(part) for part in error.absolute_path) or "(root)"
        found.append((f"at {path}: {cut(error.message, 160)}", None))
    for path, pattern in _patterns(schema):
        problem = pattern_problem(pattern)
        if problem is not None:
            text, severity = problem
            found.append((f"at {path}: pattern {cut(repr(pattern), 80)} {text}", severity))
    return found


def _patterns(schema: Any) -> Iterator[tuple[str, str]]:
    """(path, pattern) of every ``pattern`` value and ``patternProperties`` key, bounded."""
    stack: list[tuple[str, Any]] = [("", schema)]
    nodes = 0
    while stack and nodes < MAX_SCHEMA_NODES:
        path, node = stack.pop()
        nodes += 1
        if isinstance(node, dict):
            if isinstance(node.get("pattern"), str):
                yield f"{path or '(root)'}/pattern", node["pattern"]
            keyed = node.get("patternProperties")
            if isinstance(keyed, dict):
                for key in keyed:
                    yield f"{path}/patternProperties", key
            for key, value in node.items():
                if key not in ("enum", "const", "default", "examples") and isinstance(value, (dict, list)):
                    stack.append((f"{path}/{key}", value))
        elif isinstance(node, list):
            stack.extend((f"{path}/{index}", value) for index, value in enumerate(node))


WORD = re.compile(r"[A-Za-z0-9]+|\s+|.", re.S)  # our own pattern


def estimate_tokens(text: str) -> int:
    """A tokenizer-free estimate (see TOKEN_METHOD): words and numbers at ~4 characters a token,
    every other character (punctuation, braces, quotes, non-ASCII) one token, spaces free."""
    total = 0
    for piece in WORD.findall(text):
        if piece[0].isalnum() and piece.isascii():
            total += math.ceil(len(piece) / 4)
        elif not piece.isspace():
            total += 1
    return total


def model_view(tool: dict[str, Any]) -> str:
    """A tool as a model API receives it (Anthropic's shape; OpenAI's adds a little)."""
    return json.dumps(
        {"name": tool.get("name"), "description": tool.get("description"), "input_schema": tool.get("inputSchema")},
        separators=(",", ":"),
        ensure_ascii=False,
    )


def tool_sizes(tools: list[dict[str, Any]]) -> list[tuple[int, Any]]:
    """(estimated tokens, name) of each tool as a model receives it, the biggest first."""
    return sorted(((estimate_tokens(model_view(tool)), tool.get("name")) for tool in tools), key=lambda p: -p[0])


def token_findings(tools: list[dict[str, Any]], budget: int) -> list[Finding]:
    sizes = tool_sizes(tools)
    total = sum(size for size, _ in sizes)
    if total <= budget:
        return []
    biggest = ", ".join(f"{name} ({size:,})" for size, name in sizes[:BIGGEST_NAMED])
    return [
        finding(
            "tool-list-tokens",
            f"the {len(tools)} tools take about {total:,} tokens, over the budget of {budget:,}; "
            f"the biggest: {biggest}",
            where="tools/list",
            evidence=TOKEN_METHOD,
            extra={"tokens": total, "tokenMethod": "estimate"},
        )
    ]


def template_findings(templates: list[dict[str, Any]]) -> list[Finding]:
    """``uri-template``: each resource template must be RFC 6570."""
    found = []
    for template in templates:
        uri = template.get("uriTemplate")
        name = template.get("name") or uri
        if not isinstance(uri, str):
            found.append(
                finding(
                    "uri-template",
                    "uriTemplate is not a string",
                    where=f"template {name}",
                    evidence=cut(json.dumps(template), 160),
                )
            )
            continue
        problem = expression_problem(uri)
        if problem is None and uri.count("{") != uri.count("}"):
            problem = f"{uri} has unbalanced braces"
        if problem is not None:
            found.append(finding("uri-template", problem, where=f"template {name}", evidence=cut(uri, 200)))
    return found
