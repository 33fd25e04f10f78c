"""The probes over the server's surface: every list twice (pages included), the first resources
read, the prompts without required arguments got, arguments and template variables completed,
and ``--call`` tools. The tool and template rules (surface.py) run on the first listing.
"""

from __future__ import annotations

import json
from typing import Any

from ..base import jsonrpc
from ..base.errors import RequestTimeout, RpcError
from ..base.jsonrpc import Kind
from ..session.listing import LISTS, PaginationError
from ..traffic.entry import Direction
from .catalog import finding
from .model import Severity, cut
from .probes import ProbeContext, entry_seq, entry_text
from .surface import template_findings, tool_findings, tool_sizes

KINDS = ("tools", "prompts", "resources", "resource_templates")
MAX_COMPLETION_VALUES = 100
VARIABLE = r"\{[+#./;?&]?([^}]*)\}"


def _key(kind: str, item: dict[str, Any]) -> str:
    value = item.get("uriTemplate" if kind == "resource_templates" else "uri" if kind == "resources" else "name")
    return str(value)


class ListProbe:
    """Lists each declared kind twice, every page: ``pagination``, ``capability-unimplemented``,
    ``list-unstable``; then the tool and template rules on the first listing."""

    rules = (
        "pagination",
        "capability-unimplemented",
        "list-unstable",
        "tool-name-format",
        "tool-name-duplicate",
        "tool-description",
        "input-schema-type",
        "input-schema-invalid",
        "input-schema-required",
        "output-schema-invalid",
        "tool-annotations",
        "tool-list-tokens",
        "uri-template",
    )

    async def run(self, ctx: ProbeContext) -> None:
        session = ctx.session
        declared = [kind for kind in KINDS if session.supports(kind)]
        start = ctx.store.last_seq
        first: dict[str, list[dict[str, Any]]] = {}
        for kind in declared:
            items = await self._list(ctx, kind)
            if items is not None:
                first[kind] = [dict(item) for item in items]
        for kind, items in first.items():
            again = await self._list(ctx, kind, report=False)
            if again is not None:
                self._compare(ctx, kind, items, again, start)
        ctx.lists.update(first)
        if "tools" in first:
            for item in tool_findings(first["tools"], ctx.options.token_budget):
                ctx.add(item)
            total = sum(size for size, _ in tool_sizes(first["tools"]))
            ctx.note(
                f"the {len(first['tools'])} tools take about {total:,} tokens as a model receives them "
                f"(an estimate: no tokenizer offline; --token-budget {ctx.options.token_budget:,})"
            )
        if "resource_templates" in first:
            for item in template_findings(first["resource_templates"]):
                ctx.add(item)

    async def _list(self, ctx: ProbeContext, kind: str, report: bool = True) -> list[dict[str, Any]] | None:
        method = LISTS[kind][0]
        capability = LISTS[kind][2]
        try:
            return list(await ctx.session.list_all(kind))
        except PaginationError as exc:
            if report:
                ctx.add(finding("pagination", str(exc), where=method))
            return None
        except RpcError as exc:
            if report:
                templates = kind == "resource_templates"
                if exc.code == jsonrpc.METHOD_NOT_FOUND:
                    message = f"the server declares {capability} but answers {method} with -32601"
                else:
                    message = f"the server declares {capability} but {method} failed: {exc}"
                ctx.add(
                    finding(
                        "capability-unimplemented",
                        message,
                        severity=Severity.WARNING if templates else None,
                        where=method,
                        evidence=cut(json.dumps(exc.error), 200),
                    )
                )
            return None

    def _compare(
        self, ctx: ProbeContext, kind: str, before: list[dict[str, Any]], after: list[dict], start: int
    ) -> None:
        notification = LISTS[kind][3]
        announced = any(
            entry.direction is Direction.IN and entry.kind is Kind.NOTIFICATION and entry.method == notification
            for entry in ctx.store.since(start)
        )
        if announced:
            return
        old = {_key(kind, item): json.dumps(item, sort_keys=True) for item in before}
        new = {_key(kind, item): json.dumps(item, sort_keys=True) for item in after}
        if old == new:
            return
        added = sorted(set(new) - set(old))
        removed = sorted(set(old) - set(new))
        changed = sorted(key for key in set(old) & set(new) if old[key] != new[key])
        parts = []
        for label, keys in (("added", added), ("removed", removed), ("changed", changed)):
            if keys:
                parts.append(f"{label}: {', '.join(cut(k, 60) for k in keys[:5])}{' …' if len(keys) > 5 else ''}")
        noun = kind.replace("_", " ")
        evidence = ""
        if changed:
            key = changed[0]
            evidence = f"first: {cut(old[key], 140)} / then: {cut(new[key], 140)}"
        ctx.add(
            finding(
                "list-unstable",
                f"two {LISTS[kind][0]} listings in a row differ with no {notification} ({'; '.join(parts)})",
                where=f"{noun}",
                evidence=evidence,
            )
        )


class ResourceReadProbe:
    """``resource-read``: the first listed resources are read."""

    rules = ("resource-read",)

    async def run(self, ctx: ProbeContext) -> None:
        resources = ctx.lists.get("resources") or []
        limit = ctx.options.max_reads
        if len(resources) > limit:
            ctx.note(f"read the first {limit} of {len(resources)} resources")
        for resource in resources[:limit]:
            uri = resource.get("uri")
            if not isinstance(uri, str):
                continue  # the schema check says so
            try:
                result, reply = await ctx.request("resources/read", {"uri": uri})
            except RequestTimeout as exc:
                ctx.add(
                    finding(
                        "resource-read",
                        f"no answer to resources/read within {exc.seconds:g} s",
                        where=f"resource {uri}",
                    )
                )
                continue
            if isinstance(result, RpcError):
                ctx.add(
                    finding(
                        "resource-read",
                        f"listed, but resources/read answered {result}",
                        where=f"resource {uri}",
                        seq=entry_seq(reply),
                        evidence=entry_text(reply),
                    )
                )
            elif not isinstance(result.get("contents"), list) or not result["contents"]:
                ctx.add(
                    finding(
                        "resource-read",
                        "resources/read returned no contents",
                        severity=Severity.WARNING,
                        where=f"resource {uri}",
                        seq=entry_seq(reply),
                        evidence=entry_text(reply),
                    )
                )


def _required(prompt: dict[str, Any]) -> list[str]:
    arguments = prompt.get("arguments")
    if not isinstance(arguments, list):
        return []
    return [a.get("name") for a in arguments if isinstance(a, dict) and a.get("required") is True]


class PromptGetProbe:
    """``prompt-get``: each prompt without required arguments is got (the first ones)."""

    rules = ("prompt-get",)

    async def run(self, ctx: ProbeContext) -> None:
        prompts = [p for p in ctx.lists.get("prompts") or [] if not _required(p) and isinstance(p.get("name"), str)]
        for prompt in prompts[: ctx.options.max_reads]:
            name = prompt["name"]
            try:
                result, reply = await ctx.request("prompts/get", {"name": name})
            except RequestTimeout as exc:
                ctx.add(
                    finding("prompt-get", f"no answer to prompts/get within {exc.seconds:g} s", where=f"prompt {name}")
                )
                continue
            if isinstance(result, RpcError):
                ctx.add(
                    finding(
                        "prompt-get",
                        f"the prompt has no required arguments, but prompts/get answered {result}",
                        where=f"prompt {name}",
                        seq=entry_seq(reply),
                        evidence=entry_text(reply),
                    )
                )


def _template_variables(template: str) -> list[str]:
    import re  # our own pattern over the server's text, no server pattern compiled

    names = []
    for expression in re.findall(VARIABLE, template):
        for spec in expression.split(","):
            name = spec.split(":")[0].rstrip("*")
            if name:
                names.append(name)
    return names


class CompletionProbe:
    """``completion``: each prompt argument and template variable (the first ones) completed once
    with an empty value, when the server declares completions."""

    rules = ("completion", "capability-unimplemented")

    async def run(self, ctx: ProbeContext) -> None:
        if "completions" not in ctx.session.capabilities:
            return
        targets: list[tuple[dict[str, Any], str, str]] = []
        for prompt in ctx.lists.get("prompts") or []:
            for argument in prompt.get("arguments") or []:
                if isinstance(argument, dict) and isinstance(argument.get("name"), str):
                    targets.append(
                        (
                            {"type": "ref/prompt", "name": prompt.get("name")},
                            argument["name"],
                            f"prompt {prompt.get('name')}",
                        )
                    )
        for template in ctx.lists.get("resource_templates") or []:
            uri = template.get("uriTemplate")
            if isinstance(uri, str):
                for variable in _template_variables(uri):
                    targets.append(({"type": "ref/resource", "uri": uri}, variable, f"template {uri}"))
        limit = ctx.options.max_reads
        if len(targets) > limit:
            ctx.note(f"completed the first {limit} of {len(targets)} arguments and template variables")
        for ref, argument, where in targets[:limit]:
            params = {"ref": ref, "argument": {"name": argument, "value": ""}}
            try:
                result, reply = await ctx.request("completion/complete", params)
            except RequestTimeout as exc:
                ctx.add(
                    finding(
                        "completion",
                        f"no answer to completion/complete within {exc.seconds:g} s",
                        where=f"{where} {argument}",
                    )
                )
                continue
            if isinstance(result, RpcError):
                if result.code == jsonrpc.METHOD_NOT_FOUND:
                    ctx.add(
                        finding(
                            "capability-unimplemented",
                            "the server declares completions but answers completion/complete with -32601",
                            where="completion/complete",
                            seq=entry_seq(reply),
                            evidence=entry_text(reply),
                        )
                    )
                    return
                continue  # an error for one argument is the server's right (e.g. no completion for it)
            completion = result.get("completion")
            values = completion.get("values") if isinstance(completion, dict) else None
            if not isinstance(values, list):
                ctx.add(
                    finding(
                        "completion",
                        "the result has no completion.values array",
                        where=f"{where} {argument}",
                        seq=entry_seq(reply),
                        evidence=entry_text(reply),
                    )
                )
            elif len(values) > MAX_COMPLETION_VALUES:
                ctx.add(
                    finding(
                        "completion",
                        f"{len(values)} values (at most {MAX_COMPLETION_VALUES}; use total and hasMore)",
                        where=f"{where} {argument}",
                        seq=entry_seq(reply),
                        evidence=cut(json.dumps(values[:5]), 120),
                    )
                )
            elif any(not isinstance(value, str) for value in values):
                ctx.add(
                    finding(
                        "completion",
                        "values that are not strings",
                        where=f"{where} {argument}",
                        seq=entry_seq(reply),
                        evidence=cut(json.dumps(values[:5]), 120),
                    )
                )


class LoggingProbe:
    """``capability-unimplemented`` for logging: logging/setLevel answers (legacy)."""

    rules = ("capability-unimplemented",)

    async def run(self, ctx: ProbeContext) -> None:
        if ctx.era == "modern" or "logging" not in ctx.session.capabilities:
            return
        result, reply = await ctx.request("logging/setLevel", {"level": "info"})
        if isinstance(result, RpcError) and result.code == jsonrpc.METHOD_NOT_FOUND:
            ctx.add(
                finding(
                    "capability-unimplemented",
                    "the server declares logging but answers logging/setLevel with -32601",
                    where="logging/setLevel",
                    seq=entry_seq(reply),
                    evidence=entry_text(reply),
                )
            )


class CallProbe:
    """``--call TOOL k=v``: the only way a real tool is called. ``structured-content`` against the
    tool's outputSchema; the result's content and progress are judged by the live rules."""

    rules = ("structured-content",)

    async def run(self, ctx: ProbeContext) -> None:
        for name, arguments in ctx.options.calls:
            if ctx.session.tool(name) is None:
                ctx.note(f"--call {name}: the server lists no such tool (not called)")
                continue
            try:
                outcome = await ctx.session.call_tool(name, arguments)
            except RpcError as exc:
                ctx.note(f"--call {name}: JSON-RPC error {exc.code}: {exc.message}")
                continue
            except RequestTimeout as exc:
                ctx.note(f"--call {name}: no answer within {exc.seconds:g} s")
                continue
            reply = outcome.rounds[-1].reply if outcome.rounds else None
            issues = outcome.view.structured_issues
            if issues:
                ctx.add(
                    finding(
                        "structured-content",
                        f"{len(issues)} issue{'s' if len(issues) != 1 else ''} against the outputSchema: "
                        + "; ".join(str(issue) for issue in issues[:3]),
                        where=f"tool {name}",
                        seq=entry_seq(reply),
                        evidence=cut(json.dumps(outcome.view.structured), 200),
                    )
                )
