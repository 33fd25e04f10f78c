"""The demo's multi-operator resource templates, context-dependent completion and explain_error prompt."""

from __future__ import annotations

import json

FILES = "demo://files{/path*}{#section}"
SEARCH = "demo://search{?q,lang,limit}"


def complete(demo, ref: dict, name: str, value: str = "", **context: str) -> dict:
    params: dict = {"ref": ref, "argument": {"name": name, "value": value}}
    if context:
        params["context"] = {"arguments": context}
    return demo.call("completion/complete", params)["completion"]


def read(demo, uri: str) -> dict:
    contents = demo.call("resources/read", {"uri": uri})["contents"]
    assert len(contents) == 1 and contents[0]["uri"] == uri
    return contents[0]


def test_templates_are_listed_with_several_operators(demo):
    templates = {t["uriTemplate"]: t for t in demo.call("resources/templates/list")["resourceTemplates"]}
    assert list(templates)[0] == "demo://notes/{note_id}"  # the old one stays first
    assert SEARCH in templates and FILES in templates
    assert templates[SEARCH]["mimeType"] == "application/json"
    for template in templates.values():
        assert template["name"] and template["title"] and template["description"]


def test_search_template_reads_its_query(demo):
    body = json.loads(read(demo, "demo://search?q=asyncio&lang=python&limit=3")["text"])
    assert body["query"] == {"q": "asyncio", "lang": "python", "limit": 3}
    assert [hit["rank"] for hit in body["hits"]] == [1, 2, 3]
    assert "asyncio in python" in body["hits"][0]["title"]
    # Every variable undefined expands to the bare base: still readable, with a hint.
    bare = json.loads(read(demo, "demo://search")["text"])
    assert bare["hits"] == [] and "hint" in bare and bare["query"]["limit"] == 5
    # Percent-encoded values (as a client's RFC 6570 library sends them) are decoded.
    spaced = json.loads(read(demo, "demo://search?q=pattern%20matching&limit=1")["text"])
    assert spaced["query"] == {"q": "pattern matching", "lang": None, "limit": 1}
    bad = demo.error("resources/read", {"uri": "demo://search?q=x&limit=500"})
    assert bad["code"] == -32602 and "limit" in bad["message"]
    assert demo.error("resources/read", {"uri": "demo://searching"})["code"] == -32002


def test_files_template_reads_exploded_paths_and_fragments(demo):
    exploded = read(demo, "demo://files/docs/guide.md#install")
    assert exploded["mimeType"] == "text/markdown"
    assert '["docs", "guide.md"]' in exploded["text"] and '"install"' in exploded["text"]
    assert "## install  <- you asked for this section" in exploded["text"]
    # A single string value for {/path*} expands with %2F: the same file.
    encoded = read(demo, "demo://files/docs%2Fguide.md")
    assert '["docs", "guide.md"]' in encoded["text"] and "you asked" not in encoded["text"]
    listing = read(demo, "demo://files/docs")["text"]
    assert "`api.md`" in listing and "`guide.md`" in listing
    root = read(demo, "demo://files")["text"]
    assert "`docs/`" in root and "`README.md`" in root
    unknown_section = read(demo, "demo://files/src/app.py#nope")["text"]
    assert "No section 'nope'" in unknown_section and "main" in unknown_section
    missing = demo.error("resources/read", {"uri": "demo://files/no/such.md"})
    assert missing["code"] == -32002


def test_template_completion_narrows_by_context(demo):
    search, files = {"type": "ref/resource", "uri": SEARCH}, {"type": "ref/resource", "uri": FILES}
    assert "python" in complete(demo, search, "lang", "py")["values"]
    python_topics = complete(demo, search, "q", "", lang="python")["values"]
    rust_topics = complete(demo, search, "q", "", lang="rust")["values"]
    assert "asyncio" in python_topics and "ownership" not in python_topics
    assert "ownership" in rust_topics and "asyncio" not in rust_topics
    everything = complete(demo, search, "q")["values"]
    assert set(python_topics) | set(rust_topics) <= set(everything)
    assert complete(demo, search, "q", "l", lang="rust")["values"] == ["lifetimes"]
    assert complete(demo, search, "limit")["values"] == ["5", "10", "20", "50"]

    assert "docs/guide.md" in complete(demo, files, "path", "docs/")["values"]
    guide = complete(demo, files, "section", "", path="docs/guide.md")
    assert guide["values"] == ["intro", "install", "usage", "faq"] and guide["total"] == 4
    assert complete(demo, files, "section", "", path="src/app.py")["values"] == ["main", "load_config", "serve"]
    assert complete(demo, files, "section", "in", path="docs/guide.md")["values"] == ["intro", "install"]
    bad = demo.error(
        "completion/complete",
        {"ref": files, "argument": {"name": "section", "value": ""}, "context": {"arguments": {"path": 3}}},
    )
    assert bad["code"] == -32602
    unknown = demo.error(
        "completion/complete",
        {"ref": {"type": "ref/resource", "uri": "demo://x{y}"}, "argument": {"name": "y", "value": ""}},
    )
    assert unknown["code"] == -32602


def test_explain_error_prompt_completes_and_narrows(demo):
    prompts = {p["name"]: p for p in demo.call("prompts/list")["prompts"]}
    arguments = prompts["explain_error"]["arguments"]
    assert [(a["name"], a["required"]) for a in arguments] == [("language", True), ("error", True)]
    ref = {"type": "ref/prompt", "name": "explain_error"}
    assert complete(demo, ref, "language", "ru")["values"] == ["rust", "ruby"]
    rust = complete(demo, ref, "error", "E03", language="rust")["values"]
    assert rust == ["E0308 mismatched types", "E0382 use of moved value"]
    python = complete(demo, ref, "error", "", language="python")["values"]
    assert "KeyError" in python and not any(v.startswith("E0") for v in python)
    assert "KeyError" in complete(demo, ref, "error", "Key")["values"]  # no context: every language
    got = demo.call(
        "prompts/get", {"name": "explain_error", "arguments": {"language": "rust", "error": "E0382 use of moved value"}}
    )
    assert "E0382" in got["messages"][0]["content"]["text"] and got["messages"][0]["role"] == "user"
    assert demo.error("prompts/get", {"name": "explain_error", "arguments": {"language": "go"}})["code"] == -32602


def test_touch_works_on_template_expansions(demo):
    uri = "demo://files/README.md"
    assert demo.call("resources/subscribe", {"uri": uri}) == {}
    assert not demo.tool("touch_resource", {"uri": uri}).get("isError")
    assert demo.wait_for(lambda m: m.get("method") == "notifications/resources/updated")["params"]["uri"] == uri
