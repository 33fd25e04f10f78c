"""client-compat: each client's documented limits, from the table in core/checks/client_compat.py."""

from __future__ import annotations

from mcp_inspector.core.checks.client_compat import CLIENTS, client_findings
from mcp_inspector.core.checks.surface import tool_findings


def tool(name: str) -> dict:
    return {"name": name, "description": "d", "inputSchema": {"type": "object"}}


def clients(findings) -> set[str]:
    return {c.client for c in CLIENTS for f in findings if f.spec.startswith(c.client)}


def test_every_client_row_has_a_source_url():
    assert {c.client.split(" ")[0] for c in CLIENTS} >= {"Claude", "OpenAI", "Gemini", "VS", "Cursor"}
    assert all(c.source.startswith("https://") for c in CLIENTS)


def test_short_plain_names_and_dots_draw_nothing():
    assert client_findings([tool("add"), tool("lookup.code"), tool("get-tiny_image")]) == []


def test_a_long_name_is_refused_by_the_model_apis_and_filtered_by_cursor():
    found = client_findings([tool("x" * 65)])
    assert clients(found) == {"Claude (Anthropic Messages API)", "OpenAI function calling",
                              "Gemini function declarations", "Cursor"}  # fmt: skip
    assert all(f.rule == "client-compat" and f.severity.value == "warning" for f in found)
    assert clients(client_findings([tool("x" * 59)])) == {"Cursor"}  # 59 + a server name > 60


def test_gemini_wants_a_letter_or_underscore_first_and_vs_code_at_most_128_tools():
    assert clients(client_findings([tool("1st-tool")])) == {"Gemini function declarations"}
    many = [tool(f"t{i}") for i in range(129)]
    assert clients(client_findings(many)) == {"VS Code / GitHub Copilot"}
    assert any(f.rule == "client-compat" for f in tool_findings(many))  # wired into the surface rules


def test_gemini_refuses_argument_names_outside_its_pattern():
    def with_args(*names):
        return {
            "name": "t",
            "description": "d",
            "inputSchema": {"type": "object", "properties": {n: {} for n in names}},
        }

    assert client_findings([with_args("path", "dryRun", "_private", "max_tokens")]) == []
    (found,) = client_findings([with_args("file-path", "2nd", "ok", "x" * 65)])
    assert found.rule == "client-compat" and found.severity.value == "warning"
    assert found.spec.startswith("Gemini function declarations: https://cloud.google.com/vertex-ai/")
    assert found.evidence == f"t.file-path, t.2nd, t.{'x' * 65}" and found.where == "tool t"
    assert client_findings([{"name": "t", "inputSchema": {"properties": ["not", "an", "object"]}}]) == []
