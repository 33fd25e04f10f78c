"""Resource templates beyond simple ``{x}``: form-style query, path segments and fragment.

- ``demo://search{?q,lang,limit}`` (RFC 6570 ``?`` operator): a pretend search;
  reading ``demo://search?q=asyncio&lang=python&limit=3`` returns JSON describing
  the query and made-up hits. ``q`` completes from topics of the chosen ``lang``.
- ``demo://files{/path*}{#section}`` (``/`` with explode, and ``#``): a pretend
  file tree; ``demo://files/docs/guide.md#install`` returns the file with that
  section marked, ``demo://files/docs`` lists a directory. ``section`` completes
  from the sections of the chosen ``path``.

Clients expand templates differently (``{/path*}`` with the string
``docs/guide.md`` gives ``/docs%2Fguide.md``; with a list it gives
``/docs/guide.md``), so reading accepts both spellings.
"""

from __future__ import annotations

import json
from urllib.parse import parse_qs, unquote, urlencode

from . import catalog
from .errors import INVALID_PARAMS, RESOURCE_NOT_FOUND, RpcError

SEARCH_BASE = "demo://search"
SEARCH_TEMPLATE = SEARCH_BASE + "{?q,lang,limit}"
FILES_BASE = "demo://files"
FILES_TEMPLATE = FILES_BASE + "{/path*}{#section}"

TEMPLATES = [
    {
        "uriTemplate": SEARCH_TEMPLATE,
        "name": "search",
        "title": "Search (query operator)",
        "description": "A pretend search using the RFC 6570 {?...} operator. Complete `lang` first: "
        "`q` then suggests topics of that language; `limit` is 1-50.",
        "mimeType": "application/json",
    },
    {
        "uriTemplate": FILES_TEMPLATE,
        "name": "files",
        "title": "Files (path and fragment operators)",
        "description": "A pretend file tree using {/path*} (exploded path segments) and {#section} (fragment). "
        "Complete `path` (e.g. docs/guide.md), then `section` suggests that file's sections.",
        "mimeType": "text/markdown",
    },
]


def matches(uri: str) -> bool:
    """Whether ``uri`` is an expansion of one of these templates (it may still fail to read)."""
    return _split(uri, SEARCH_BASE, "?") is not None or _split(uri, FILES_BASE, "/") is not None


def read(uri: str) -> list[dict] | None:
    """Contents for an expansion of these templates, or None if ``uri`` is not one."""
    query = _split(uri, SEARCH_BASE, "?")
    if query is not None:
        return [{"uri": uri, "mimeType": "application/json", "text": json.dumps(_search(query), indent=2)}]
    rest = _split(uri, FILES_BASE, "/")
    if rest is not None:
        return [_file(uri, rest)]
    return None


def completion_candidates(template: str, name: str, context: dict[str, str]) -> list[str] | None:
    """Suggestions for variable ``name``; None when ``template`` is not one of ours."""
    if template == SEARCH_TEMPLATE:
        return {
            "q": catalog.topics_for(context.get("lang")),
            "lang": catalog.LANGUAGES,
            "limit": catalog.LIMITS,
        }.get(name, [])
    if template == FILES_TEMPLATE:
        if name == "path":
            return sorted(catalog.FILES) + catalog.directories()
        if name == "section":
            return catalog.sections_for(context.get("path"))
        return []
    return None


def search_uri(**params: str) -> str:
    """The expansion a client would produce, e.g. for descriptions and tests."""
    return SEARCH_BASE + ("?" + urlencode(params) if params else "")


# -- reading -------------------------------------------------------------------------


def _split(uri: str, base: str, separator: str) -> str | None:
    """The part of ``uri`` after ``base`` when it starts with ``separator``, '#' or nothing."""
    if not uri.startswith(base):
        return None
    rest = uri[len(base) :]
    if rest == "" or rest[0] in (separator, "#"):
        return rest
    return None


def _search(rest: str) -> dict:
    query_text = rest.partition("#")[0].lstrip("?")
    try:
        fields = parse_qs(query_text, keep_blank_values=True, strict_parsing=bool(query_text))
    except ValueError:
        raise RpcError(INVALID_PARAMS, "Malformed query string", {"query": query_text}) from None
    q = fields.get("q", [""])[0]
    lang = fields.get("lang", [""])[0]
    limit_text = fields.get("limit", ["5"])[0] or "5"
    try:
        limit = int(limit_text)
    except ValueError:
        limit = 0
    if not 1 <= limit <= catalog.MAX_LIMIT:
        raise RpcError(INVALID_PARAMS, f"limit must be an integer from 1 to {catalog.MAX_LIMIT}", {"limit": limit_text})
    unknown = sorted(set(fields) - {"q", "lang", "limit"})
    hits = []
    if q:
        for i in range(1, limit + 1):
            hits.append(
                {
                    "rank": i,
                    "title": f"{q} in {lang or 'any language'}: result {i}",
                    "uri": search_uri(q=q, **({"lang": lang} if lang else {}), limit=str(limit)) + f"#hit-{i}",
                    "score": round(1 / i, 3),
                }
            )
    out: dict = {"template": SEARCH_TEMPLATE, "query": {"q": q, "lang": lang or None, "limit": limit}, "hits": hits}
    if not q:
        out["hint"] = "Set q (complete it after choosing lang)."
    if unknown:
        out["ignored"] = unknown
    return out


def _file(uri: str, rest: str) -> dict:
    path_part, _, section = rest.partition("#")
    segments = [part for raw in path_part.split("/") for part in unquote(raw).split("/") if part]
    path = "/".join(segments)
    section = unquote(section)
    if path == "" or path in catalog.directories():
        prefix = path + "/" if path else ""
        entries = sorted(
            {
                p[len(prefix) :].split("/")[0] + ("/" if "/" in p[len(prefix) :] else "")
                for p in catalog.FILES
                if p.startswith(prefix)
            }
        )
        text = f"# /{path}\n\nA directory of the pretend tree ({len(entries)} entries):\n\n"
        text += "".join(f"- `{entry}`\n" for entry in entries)
        return {"uri": uri, "mimeType": "text/markdown", "text": text}
    sections = catalog.FILES.get(path)
    if sections is None:
        raise RpcError(RESOURCE_NOT_FOUND, "Resource not found", {"uri": uri, "path": path})
    lines = [f"# /{path}", "", f"Path segments: {json.dumps(segments)}; section: {json.dumps(section or None)}.", ""]
    if section and section not in sections:
        lines += [f"> No section {section!r} in this file; it has: {', '.join(sections)}.", ""]
    for name in sections:
        marker = "  <- you asked for this section" if name == section else ""
        lines += [f"## {name}{marker}", "", f"Pretend text of {name!r} in {path}.", ""]
    return {"uri": uri, "mimeType": "text/markdown", "text": "\n".join(lines)}
