"""``client-compat``, schema part: JSON Schema keywords and shapes in a tool's ``inputSchema`` that a
named client refuses, strips or rewrites, as data.

:data:`SCHEMA_RULES` is the table (the client, the keyword or shape, what the client does with it,
the severity and where that is seen: a client's code at a commit, an API's documented schema, or
the client's own tracker quoting its error); :func:`schema_findings` is the one pass over a listing
(one finding per rule, naming the tools). Each walk is bounded (nodes per tool, nodes per listing):
a server's schema can be huge. The "Schema keywords per client" table of docs/checks.md is made
from :data:`SCHEMA_RULES` (``scripts/check_rules_table.py``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from .catalog import finding
from .model import Finding, Severity

SHOWN = 5  # tools quoted per finding
MAX_NODES = 5_000  # schema nodes walked per tool
MAX_LISTING_NODES = 200_000  # schema nodes walked per listing (the tools past it are not judged)
MAX_REFS = 50  # distinct $refs of a tool followed for recursion

COPILOT = "https://github.com/microsoft/vscode-copilot-chat/blob/31acd00a86424e2ee6e980e54919cf31fbf88030/src/extension/tools/common/toolSchemaNormalizer.ts"
CLAUDE_COMBINATOR = "https://github.com/anthropics/claude-code/issues/5319"
GEMINI_CLI_DEPTH = "https://github.com/google-gemini/gemini-cli/blob/5411f113cafae26161b4969b0237b8e1e024e2c2/packages/core/src/core/geminiChat.ts"
GEMINI_SCHEMA = "https://googleapis.github.io/js-genai/release_docs/interfaces/types.Schema.html"
GENAI_MCP = "https://github.com/googleapis/python-genai/blob/66807187f2123c6676175ac991f4e34eb09200d1/google/genai/_mcp_utils.py"
OPENAI_STRICT = "https://platform.openai.com/docs/guides/structured-outputs#supported-schemas"
AGENTS_STRICT = "https://github.com/openai/openai-agents-python/blob/7f7a44f8dc0650296bd5ab6c745c9bcbaa6ac3b7/src/agents/strict_schema.py"
CURSOR_TYPE_LIST = "https://github.com/cursor/cursor/issues/3778"

# the subschemas of a node, by keyword: a map of them, a list of them, or one
MAPS = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas", "dependencies")
LISTS = ("anyOf", "oneOf", "allOf", "prefixItems", "items")
ONES = (
    "items",
    "additionalProperties",
    "not",
    "if",
    "then",
    "else",
    "contains",
    "propertyNames",
    "unevaluatedProperties",
    "unevaluatedItems",
    "additionalItems",
)
ALL = (MAPS, LISTS, ONES)
# GitHub Copilot's forEachSchemaNode: no $defs, definitions, prefixItems, propertyNames...
COPILOT_WALK = (
    ("properties", "patternProperties", "dependencies"),
    ("anyOf", "oneOf", "allOf", "items"),
    ("items", "additionalProperties", "not", "if", "then", "else", "contains"),
)

CLAUDE_TOP = ("anyOf", "oneOf", "allOf")
COPILOT_TOP = ("oneOf", "anyOf", "allOf", "not", "if", "then", "else")
# removed by GitHub Copilot when the model's family starts with gpt-4 (gpt4oUnsupportedSchemaKeywords)
COPILOT_GPT4 = frozenset(
    [
        "minLength",
        "maxLength",
        "pattern",
        "default",
        "format",
        "minimum",
        "maximum",
        "multipleOf",
        "patternProperties",
        "unevaluatedProperties",
        "propertyNames",
        "minProperties",
        "maxProperties",
        "unevaluatedItems",
        "contains",
        "minContains",
        "maxContains",
        "minItems",
        "maxItems",
        "uniqueItems",
    ]
)
COPILOT_GPT4_DESCRIPTION = 1024  # characters of a description kept for gpt-4 family models
# constraints the Gemini API's Schema object (FunctionDeclaration.parameters) has no field for
GEMINI_DROPPED = frozenset(
    [
        "oneOf",
        "allOf",
        "not",
        "if",
        "then",
        "else",
        "const",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "multipleOf",
        "uniqueItems",
        "contains",
        "minContains",
        "maxContains",
        "prefixItems",
        "patternProperties",
        "propertyNames",
        "dependentRequired",
        "dependentSchemas",
        "unevaluatedProperties",
        "unevaluatedItems",
    ]
)
# documented as not supported by OpenAI's strict mode (Structured Outputs "Supported schemas")
OPENAI_UNSUPPORTED = ("allOf", "not", "dependentRequired", "dependentSchemas", "if", "then", "else")


@dataclass(frozen=True)
class SchemaRule:
    id: str  # a short name for the trouble (tests and the docs' table)
    client: str
    shape: str  # the keyword or shape, in words (the docs' table)
    short: str  # the same, short (the finding's message)
    does: str  # what the client does with it (the docs' table and the message)
    severity: Severity
    sources: tuple[str, ...]  # URLs: code at a commit, an API's schema, the client's tracker
    hint: str
    judge: Callable[[dict[str, Any]], list[str]]  # a tool's inputSchema -> what it found there (empty: nothing)


def walk(
    schema: Any, keys: tuple[tuple[str, ...], ...] = ALL, limit: int = MAX_NODES
) -> Iterator[tuple[str, dict[str, Any]]]:
    """(JSON pointer, node) of ``schema`` and its subschemas reached through ``keys`` (maps, lists,
    single subschemas), at most ``limit`` nodes, iteratively (a deep schema cannot overflow the stack)."""
    maps, lists, ones = keys
    stack: list[tuple[str, Any]] = [("", schema)]
    seen = 0
    while stack and seen < limit:
        pointer, node = stack.pop()
        if not isinstance(node, dict):
            continue
        seen += 1
        yield pointer or "/", node
        children: list[tuple[str, Any]] = []
        for key in maps:
            value = node.get(key)
            if isinstance(value, dict):
                children += [(f"{pointer}/{key}/{_escape(name)}", sub) for name, sub in value.items()]
        for key in lists:
            value = node.get(key)
            if isinstance(value, list):
                children += [(f"{pointer}/{key}/{index}", sub) for index, sub in enumerate(value)]
        for key in ones:
            value = node.get(key)
            if isinstance(value, dict):
                children.append((f"{pointer}/{key}", value))
        stack.extend(reversed(children))


def _escape(name: Any) -> str:
    """A JSON pointer's reference token (RFC 6901: ~ and / escaped)."""
    return str(name).replace("~", "~0").replace("/", "~1")


def _is_object(node: dict[str, Any]) -> bool:
    kind = node.get("type")
    return kind == "object" or (isinstance(kind, list) and "object" in kind) or isinstance(node.get("properties"), dict)


def _top_level(keys: tuple[str, ...]) -> Callable[[dict[str, Any]], list[str]]:
    return lambda schema: [key for key in keys if key in schema]


def _array_without_items(schema: dict[str, Any]) -> list[str]:
    """Copilot: ``n.type === 'array' && !n.items`` (JavaScript falsiness: missing, null, false, 0, "")."""
    found = []
    for pointer, node in walk(schema, COPILOT_WALK):
        items = node.get("items")
        if node.get("type") == "array" and (items is None or (not isinstance(items, dict | list) and not items)):
            found.append(pointer)
    return found


def _gpt4_stripped(schema: dict[str, Any]) -> list[str]:
    keywords: set[str] = set()
    for _pointer, node in walk(schema, COPILOT_WALK):
        keywords |= COPILOT_GPT4 & node.keys()
        description = node.get("description")
        if isinstance(description, str) and len(description) > COPILOT_GPT4_DESCRIPTION:
            keywords.add(f"description over {COPILOT_GPT4_DESCRIPTION} characters")
    return sorted(keywords)


def _gemini_dropped(schema: dict[str, Any]) -> list[str]:
    keywords: set[str] = set()
    for _pointer, node in walk(schema):
        keywords |= GEMINI_DROPPED & node.keys()
        if isinstance(node.get("additionalProperties"), dict):
            keywords.add("additionalProperties (a schema)")
    return sorted(keywords)


def _resolve(schema: dict[str, Any], ref: str) -> Any:
    """A local ``#/...`` reference of ``schema`` (None when it is not local or leads nowhere)."""
    if not ref.startswith("#/"):
        return None
    node: Any = schema
    for part in ref[2:].split("/"):
        part = part.replace("~1", "/").replace("~0", "~")
        if not isinstance(node, dict) or part not in node:
            return None
        node = node[part]
    return node


def _refs_in(node: Any) -> set[str]:
    return {sub["$ref"] for _pointer, sub in walk(node) if isinstance(sub.get("$ref"), str)}


def _recursive_refs(schema: dict[str, Any]) -> list[str]:
    """The local ``$ref``s that lead back into themselves (``#`` itself, or a cycle of definitions);
    at most :data:`MAX_REFS` distinct references are followed, each target walked once."""
    inner: dict[str, set[str]] = {}

    def refs_of(ref: str) -> set[str]:
        if ref not in inner:
            inner[ref] = _refs_in(_resolve(schema, ref)) if len(inner) < MAX_REFS else set()
        return inner[ref]

    cyclic = []
    for start in sorted(_refs_in(schema)):
        if start in ("#", "#/"):
            cyclic.append(start)
            continue
        stack, seen = [start], {start}
        while stack:
            reached = refs_of(stack.pop())
            if start in reached or "#" in reached or "#/" in reached:
                cyclic.append(start)
                break
            stack.extend(reached - seen)
            seen |= reached
    return cyclic


def _strict_problems(schema: dict[str, Any]) -> list[str]:
    """What OpenAI's strict mode cannot take (the root object without properties is left alone: a
    tool without arguments loses nothing by being sent non-strict)."""
    found = []
    if isinstance(schema.get("anyOf"), list):
        found.append("anyOf at the root")
    for pointer, node in walk(schema):
        found += [f"{key} at {pointer}" for key in OPENAI_UNSUPPORTED if key in node]
        if not _is_object(node) or (pointer == "/" and not node.get("properties")):
            continue
        extra = node.get("additionalProperties", None)
        if "additionalProperties" in node and extra is not False:
            found.append(f"additionalProperties that is not false at {pointer}")
        elif not node.get("properties") and extra is not False:
            found.append(f"an object without properties that is not closed at {pointer}")
    return found


def _type_lists(schema: dict[str, Any]) -> list[str]:
    return [
        f"{pointer} ({'/'.join(map(str, node['type']))})"
        for pointer, node in walk(schema)
        if isinstance(node.get("type"), list) and len(node["type"]) > 1
    ]


SCHEMA_RULES: tuple[SchemaRule, ...] = (
    SchemaRule(
        "top-level-combinator",
        "Claude (Anthropic Messages API)",
        "`anyOf`, `oneOf` or `allOf` at the top level of `inputSchema`",
        "anyOf/oneOf/allOf at the top level of inputSchema",
        'refuses the request (400 "input_schema does not support oneOf, allOf, or anyOf at the top level"): '
        "Claude Code then fails every request while the tool is listed",
        Severity.WARNING,
        (CLAUDE_COMBINATOR,),
        "Keep the top level a plain object: express alternatives inside a property, or as optional "
        "properties checked by the tool.",
        _top_level(CLAUDE_TOP),
    ),
    SchemaRule(
        "array-without-items",
        "VS Code / GitHub Copilot",
        '`"type": "array"` without `items` (anywhere under `properties`, `items`, `anyOf`...)',
        "an array schema without items",
        'refuses the request ("Failed to validate tool ...: tool parameters array type must have items")',
        Severity.WARNING,
        (COPILOT,),
        'Give every array schema its items, e.g. "items": {"type": "string"} (or {} for anything).',
        _array_without_items,
    ),
    SchemaRule(
        "top-level-dropped",
        "VS Code / GitHub Copilot",
        "`oneOf`, `anyOf`, `allOf`, `not`, `if`, `then` or `else` at the top level",
        "a combinator at the top level",
        "deletes it before the model sees the schema: the constraint is lost",
        Severity.INFO,
        (COPILOT,),
        "Keep the top level a plain object and check the combination in the tool.",
        _top_level(COPILOT_TOP),
    ),
    SchemaRule(
        "gpt4-stripped",
        "VS Code / GitHub Copilot",
        "`minLength`, `maxLength`, `pattern`, `default`, `format`, `minimum`, `maximum`, `multipleOf`, "
        "`minItems`, `maxItems`, `uniqueItems`, `minProperties`, `maxProperties`, `patternProperties`, "
        "`propertyNames`, `contains`... and descriptions over 1,024 characters",
        "constraint keywords",
        "removes them (and cuts longer descriptions) for a GPT-4 family model: the model does "
        "not see those constraints",
        Severity.INFO,
        (COPILOT,),
        "Say the constraint in the property's description too, and keep validating arguments in the tool.",
        _gpt4_stripped,
    ),
    SchemaRule(
        "gemini-parameters",
        "Gemini function declarations (parameters)",
        "constraints the Gemini API's `Schema` object has no field for (`oneOf`, `allOf`, `not`, `const`, "
        "`if`/`then`/`else`, `exclusiveMinimum`, `multipleOf`, `uniqueItems`, `prefixItems`, "
        "`patternProperties`, `additionalProperties` as a schema...)",
        "constraints the Gemini Schema object cannot carry",
        "a client that declares the tool as `parameters` (the Schema subset of OpenAPI 3.0), such as the "
        "google-genai SDK's MCP support, drops them; gemini-cli sends `parametersJsonSchema` and keeps them",
        Severity.INFO,
        (GEMINI_SCHEMA, GENAI_MCP),
        "Say the constraint in the description too; prefer enum, minimum/maximum, min/maxLength, pattern "
        "and anyOf, which the Schema object has.",
        _gemini_dropped,
    ),
    SchemaRule(
        "recursive-ref",
        "Gemini (gemini-cli)",
        "a `$ref` that leads back into itself (a recursive schema)",
        "a recursive $ref",
        'the Gemini API may refuse the request ("maximum schema depth exceeded", "Request contains an invalid '
        'argument"); gemini-cli then names the tool and asks the user to exclude it',
        Severity.WARNING,
        (GEMINI_CLI_DEPTH,),
        "Unroll the recursion to a fixed depth, or take the nested part as a JSON string.",
        _recursive_refs,
    ),
    SchemaRule(
        "openai-strict",
        "OpenAI strict mode (Structured Outputs)",
        "`additionalProperties` other than false, an object without properties, `anyOf` at the root, "
        "`allOf`, `not`, `if`/`then`/`else`, `dependentRequired`, `dependentSchemas`",
        "objects left open, or keywords strict mode does not support",
        "a host that converts MCP tools to strict mode (the OpenAI Agents SDK's convert_schemas_to_strict) "
        "sends such a tool non-strict",
        Severity.INFO,
        (OPENAI_STRICT, AGENTS_STRICT),
        'Close objects ("additionalProperties": false) with their properties declared; take free-form maps as '
        "an array of {key, value} objects.",
        _strict_problems,
    ),
    SchemaRule(
        "type-list",
        "Cursor",
        '`"type"` as a list (e.g. `["null", "string"]`)',
        "a type given as a list",
        'its argument check was reported to refuse valid values ("must be of type null,string, got string"; '
        "cursor/cursor#3778, open)",
        Severity.INFO,
        (CURSOR_TYPE_LIST,),
        "Give each argument one type; make it optional by leaving it out of required.",
        _type_lists,
    ),
)


def _listed(items: list[str], sep: str = ", ") -> str:
    shown = sep.join(items[:SHOWN])
    return shown + (f"{sep}and {len(items) - SHOWN} more" if len(items) > SHOWN else "")


def message(rule: SchemaRule, names: list[str]) -> str:
    count = f"{len(names)} tool{'s' if len(names) > 1 else ''}"
    return f"{rule.client}: {rule.short}: {rule.does.replace('`', '')} ({count}: {_listed(names)})"


def schema_findings(tools: list[dict[str, Any]]) -> list[Finding]:
    """One finding per rule of :data:`SCHEMA_RULES` that some tool's inputSchema breaks, naming
    the tools (the message) and what in each (the evidence: JSON pointers or keywords)."""
    names: dict[str, list[str]] = {rule.id: [] for rule in SCHEMA_RULES}
    details: dict[str, list[str]] = {rule.id: [] for rule in SCHEMA_RULES}
    budget = MAX_LISTING_NODES
    for tool in tools:
        schema, name = tool.get("inputSchema"), tool.get("name")
        if not isinstance(schema, dict) or not isinstance(name, str):
            continue
        budget -= sum(1 for _ in walk(schema))
        if budget < 0:
            break
        for rule in SCHEMA_RULES:
            found = rule.judge(schema)
            if found:
                names[rule.id].append(name)
                details[rule.id].append(f"{name}: {_listed(found)}")
    return [
        finding(
            "client-compat",
            message(rule, names[rule.id]),
            severity=rule.severity,
            where=f"tool {names[rule.id][0]}",
            hint=rule.hint,
            spec=f"{rule.client}: " + " and ".join(rule.sources),
            evidence=_listed(details[rule.id], "; "),
        )
        for rule in SCHEMA_RULES
        if names[rule.id]
    ]
