"""Fixed data behind the demo's completions and generated resources.

Kept apart so prompts, templates and completions can share it without
importing each other. Everything here is invented sample data.
"""

from __future__ import annotations

STYLES = ["concise", "detailed", "bullet-points", "casual", "formal", "eli5", "executive"]
LANGUAGES = [
    "python",
    "javascript",
    "typescript",
    "rust",
    "go",
    "java",
    "kotlin",
    "c",
    "cpp",
    "csharp",
    "ruby",
    "swift",
    "php",
    "scala",
    "haskell",
]

# Search topics by language: `q` in demo://search{?q,lang,limit} narrows by `lang`.
TOPICS = {
    "python": ["asyncio", "dataclasses", "decorators", "generators", "pathlib", "typing"],
    "javascript": ["closures", "events", "modules", "promises"],
    "typescript": ["decorators", "generics", "modules", "narrowing"],
    "rust": ["async", "lifetimes", "macros", "ownership", "traits"],
    "go": ["channels", "generics", "goroutines", "interfaces"],
}
LIMITS = ["5", "10", "20", "50"]
MAX_LIMIT = 50

# A tiny pretend file tree: path -> its sections (headings or functions).
# `section` in demo://files{/path*}{#section} narrows by `path`.
FILES = {
    "README.md": ["about", "quick-start", "license"],
    "docs/guide.md": ["intro", "install", "usage", "faq"],
    "docs/api.md": ["tools", "resources", "prompts", "tasks"],
    "src/app.py": ["main", "load_config", "serve"],
    "src/util.py": ["retry", "slugify"],
}

# Error names by language: `error` of the explain_error prompt narrows by `language`.
ERRORS = {
    "python": ["AttributeError", "ImportError", "IndexError", "KeyError", "RecursionError", "TypeError", "ValueError"],
    "javascript": ["RangeError", "ReferenceError", "SyntaxError", "TypeError"],
    "typescript": ["TS2322 type is not assignable", "TS2339 property does not exist", "TS7006 implicit any"],
    "rust": [
        "E0308 mismatched types",
        "E0382 use of moved value",
        "E0425 unresolved name",
        "E0499 two mutable borrows",
    ],
    "go": ["deadlock", "index out of range", "nil pointer dereference", "unused variable"],
}
GENERIC_ERRORS = ["compile error", "runtime error", "syntax error", "timeout"]


def directories() -> list[str]:
    """Every directory of the pretend tree, e.g. ``docs``."""
    return sorted({path.rsplit("/", 1)[0] for path in FILES if "/" in path})


def topics_for(language: str | None) -> list[str]:
    if language:
        return TOPICS.get(language.lower(), [])
    return sorted({topic for topics in TOPICS.values() for topic in topics})


def errors_for(language: str | None) -> list[str]:
    if language:
        return ERRORS.get(language.lower(), GENERIC_ERRORS)
    return sorted({error for errors in ERRORS.values() for error in errors})


def sections_for(path: str | None) -> list[str]:
    if path:
        return FILES.get(path.strip("/"), [])
    return sorted({section for sections in FILES.values() for section in sections})
