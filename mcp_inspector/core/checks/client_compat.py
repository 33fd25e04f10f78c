"""``client-compat``: what specific clients refuse or rewrite in a server's tools, as data.

:data:`CLIENTS` is the table (the client, its tool-name pattern, its tool-count limit, its
combined server+tool name limit, and where that is documented); :func:`client_findings` is the
one rule over it (with the schema keywords and shapes of ``client_schema.py``). A name the spec
itself refuses is ``tool-name-format``'s (an error), not judged again here, and a dot (which the
spec allows) is left alone: MCP clients rewrite names before a model API sees them.
The "Client compatibility" table of docs/checks.md lists the same rows.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from .catalog import finding
from .client_schema import schema_findings
from .model import Finding

SPEC_NAME = re.compile(r"[A-Za-z0-9_.\-]{1,128}")  # SEP-986 (tool-name-format judges the rest)
SHOWN = 5  # tool names quoted per finding


@dataclass(frozen=True)
class ClientRule:
    client: str
    name_pattern: str | None  # a full-match regex for a tool name, or None
    name_rule: str  # the pattern in words
    max_tools: int | None  # tools per request, or None
    combined_name: int | None  # characters of server name + tool name, or None
    source: str  # where this is documented (a URL we found)
    param_pattern: str | None = None  # a full-match regex for a top-level argument name, or None
    param_rule: str = ""  # the pattern in words
    param_source: str = ""  # where the argument-name rule is documented


CLIENTS: tuple[ClientRule, ...] = (
    ClientRule(
        "Claude (Anthropic Messages API)",
        r"[a-zA-Z0-9_-]{1,64}",
        "^[a-zA-Z0-9_-]{1,64}$",
        None,
        None,
        "https://apis.io/schemas/claude/claude-messages-tool/",
    ),
    ClientRule(
        "OpenAI function calling",
        r"[a-zA-Z0-9_-]{1,64}",
        "a-z, A-Z, 0-9, underscores and dashes, at most 64",
        None,
        None,
        "https://docs.rs/crate/openai-client-base/0.12.0/source/docs/ChatCompletionFunctions.md",
    ),
    ClientRule(
        "Gemini function declarations",
        r"[a-zA-Z_][a-zA-Z0-9_.:\-]{0,63}",
        "starts with a letter or underscore; a-z, A-Z, 0-9, underscores, dots, colons, dashes; at most 64",
        None,
        None,
        "https://googleapis.github.io/java-genai/javadoc/google-genai/com.google.genai.types/-function-declaration/-builder/name.html",
        param_pattern=r"[a-zA-Z_][a-zA-Z0-9_]{0,63}",
        param_rule="starts with a letter or underscore; a-z, A-Z, 0-9 and underscores; at most 64",
        param_source="https://cloud.google.com/vertex-ai/docs/reference/rest/v1beta1/FunctionDeclaration",
    ),
    ClientRule(
        "VS Code / GitHub Copilot",
        None,
        "",
        128,
        None,
        "https://qiita.com/baku2san/items/459a1b9b8332f943e2e2",
    ),
    ClientRule(
        "Cursor",
        None,
        "",
        None,
        60,
        "https://github.com/ComposioHQ/composio/issues/2788",
    ),
)


def _names(tools: list[dict[str, Any]]) -> list[str]:
    return [tool["name"] for tool in tools if isinstance(tool.get("name"), str) and SPEC_NAME.fullmatch(tool["name"])]


def _listed(names: list[str]) -> str:
    shown = ", ".join(repr(name) for name in names[:SHOWN])
    return shown + (f" and {len(names) - SHOWN} more" if len(names) > SHOWN else "")


def _argument_names(rule: ClientRule, tools: list[dict[str, Any]]) -> list[Finding]:
    """Top-level argument names the client's function declarations refuse (one finding per client)."""
    assert rule.param_pattern is not None
    pattern = re.compile(rule.param_pattern)
    refused: list[str] = []
    first = ""
    for tool in tools:
        schema = tool.get("inputSchema")
        properties = schema.get("properties") if isinstance(schema, dict) else None
        if not isinstance(properties, dict) or not isinstance(tool.get("name"), str):
            continue
        bad = [f"{tool['name']}.{key}" for key in properties if isinstance(key, str) and not pattern.fullmatch(key)]
        if bad and not refused:
            first = tool["name"]
        refused += bad
    if not refused:
        return []
    return [
        finding(
            "client-compat",
            f"{rule.client} takes argument names matching {rule.param_rule}: {_listed(refused)} would be refused "
            "where a client declares the arguments as parameters (not as parametersJsonSchema)",
            where=f"tool {first}",
            hint="Name arguments with letters, digits and underscores, starting with a letter (snake_case, camelCase).",
            spec=f"{rule.client}: {rule.param_source}",
            evidence=", ".join(refused[:SHOWN]),
        )
    ]


def client_findings(tools: list[dict[str, Any]]) -> list[Finding]:
    """One finding per client and kind of trouble, naming the client and its source."""
    found: list[Finding] = []
    names = _names(tools)
    for rule in CLIENTS:
        spec = f"{rule.client}: {rule.source}"
        if rule.name_pattern is not None:
            pattern = re.compile(rule.name_pattern)
            # a dot the spec allows is left alone: MCP clients rewrite it before the model API sees it
            refused = [name for name in names if not pattern.fullmatch(name.replace(".", "_"))]
            if refused:
                found.append(
                    finding(
                        "client-compat",
                        f"{rule.client} takes tool names matching {rule.name_rule}: {_listed(refused)} "
                        "would be refused there",
                        where=f"tool {refused[0]}",
                        hint="Keep tool names to 1-64 of A-Z a-z 0-9 _ - (start with a letter) for every client.",
                        spec=spec,
                        evidence=", ".join(refused[:SHOWN]),
                    )
                )
        if rule.param_pattern is not None:
            found += _argument_names(rule, tools)
        if rule.max_tools is not None and len(tools) > rule.max_tools:
            found.append(
                finding(
                    "client-compat",
                    f"{rule.client} sends at most {rule.max_tools} tools per request: this server alone lists "
                    f"{len(tools)}",
                    where="tools/list",
                    hint="Split the server or offer fewer, broader tools.",
                    spec=spec,
                    evidence=f"{len(tools)} tools",
                )
            )
        if rule.combined_name is not None:
            # the server's name there is the user's config key (at least 1 character and a separator)
            long = [name for name in names if len(name) + 2 > rule.combined_name]
            if long:
                found.append(
                    finding(
                        "client-compat",
                        f"{rule.client} filters out tools whose server name and tool name together exceed "
                        f"{rule.combined_name} characters: {_listed(long)} exceed it with any server name",
                        where=f"tool {long[0]}",
                        hint=f"Keep tool names well under {rule.combined_name} characters (the server's name counts).",
                        spec=spec,
                        evidence=", ".join(f"{name} ({len(name)})" for name in long[:SHOWN]),
                    )
                )
    return found + schema_findings(tools)  # client_schema.py: schema keywords and shapes per client
