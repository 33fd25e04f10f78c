"""File names in comments, docstrings and the docs name files that exist.

A comment that says "see main_views.py" after that module was renamed sends the next reader
looking for nothing. Every ``something.py`` (or ``folder/something.py``) in a comment or a string
of mcp_inspector/, in README.md and in docs/ must be a file of the repository (a path matches
when it is the tail of a real one), except the made-up names of examples listed below.
"""

from __future__ import annotations

import io
import re
import tokenize
from collections.abc import Iterator
from pathlib import Path

import mcp_inspector

ROOT = Path(mcp_inspector.__file__).resolve().parent.parent
SKIP = {"node_modules", ".venv", ".git", "site"}
REFERENCE = re.compile(r"(?<![\w./-])((?:[\w.-]+/)*[A-Za-z_][\w-]*\.py)\b")

# A link to another repository names its files, not ours: [label](https://...) is left out.
EXTERNAL_LINK = re.compile(r"\[[^\]]*\]\(https?://[^)]*\)")

# Names in examples and sample data, not files of ours.
EXAMPLES = {"x.py", "script.py", "my_server.py", "util.py", "src/app.py", "src/util.py"}

# Stale references not fixed yet: "path:reference". Fix one and drop it.
KNOWN_STALE: set[str] = set()


def repository_files(root: Path) -> list[str]:
    return [
        path.relative_to(root).as_posix() for path in root.rglob("*.py") if not SKIP & set(path.relative_to(root).parts)
    ]


def tails(files: list[str]) -> set[str]:
    """Every tail of every path: ``a/b/c.py`` gives ``c.py``, ``b/c.py`` and ``a/b/c.py``."""
    found = set()
    for name in files:
        parts = name.split("/")
        found.update("/".join(parts[i:]) for i in range(len(parts)))
    return found


def prose(path: Path) -> Iterator[str]:
    """The comments and strings of a Python file; every line of any other."""
    text = path.read_text(encoding="utf-8")
    if path.suffix != ".py":
        yield from text.splitlines()
        return
    for token in tokenize.generate_tokens(io.StringIO(text).readline):
        if token.type in (tokenize.COMMENT, tokenize.STRING):
            yield token.string


def stale_references(root: Path, documents: list[Path]) -> set[str]:
    known = tails(repository_files(root))
    found = set()
    for document in documents:
        for text in prose(document):
            for match in REFERENCE.finditer(EXTERNAL_LINK.sub("", text)):
                reference = match.group(1)
                if reference not in EXAMPLES and reference.removeprefix("./") not in known:
                    found.add(f"{document.relative_to(root).as_posix()}: {reference}")
    return found


def test_comments_and_docs_name_files_that_exist() -> None:
    documents = [
        *sorted((ROOT / "mcp_inspector").rglob("*.py")),
        ROOT / "README.md",
        *sorted((ROOT / "docs").rglob("*.md")),
    ]
    assert len(documents) > 200
    found = stale_references(ROOT, documents)
    assert found - KNOWN_STALE == set(), "comments name files that do not exist: " + "; ".join(
        sorted(found - KNOWN_STALE)
    )
    assert KNOWN_STALE - found == set(), f"fixed, drop from KNOWN_STALE: {sorted(KNOWN_STALE - found)}"


def test_a_renamed_module_left_in_a_comment_is_found(tmp_path: Path) -> None:
    (tmp_path / "pkg" / "sub").mkdir(parents=True)
    (tmp_path / "pkg" / "sub" / "views.py").write_text('"""Shown by sub/views.py and views.py."""\n')
    module = tmp_path / "pkg" / "screen.py"
    module.write_text('"""Fed in main_views.py."""\n# see pkg/sub/views.py, old/views.py and x.py\nname = "gone.py"\n')
    doc = tmp_path / "README.md"
    doc.write_text(
        "Run `python pkg/screen.py` or `python pkg/screen2.py`.\n"
        "As [their gone2.py](https://example.org/a/gone2.py) does.\n"
    )
    assert stale_references(tmp_path, [module, doc, tmp_path / "pkg" / "sub" / "views.py"]) == {
        "pkg/screen.py: main_views.py",
        "pkg/screen.py: old/views.py",
        "pkg/screen.py: gone.py",
        "README.md: pkg/screen2.py",
    }
