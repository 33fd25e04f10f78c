"""Is a server's ``pattern`` a regular expression? Never answered with Python's ``re`` (it
backtracks: a crafted pattern holds the GIL for ever), only through RE2.

The project's own path for server patterns is ``core/schema/server_regex.py`` (ECMA-262 translated
to RE2, bounded); until it is there this module compiles with ``re2`` itself under the same limits.
A pattern broken in any dialect is an error; one RE2 cannot express (lookaround, backreferences,
a repetition over 1000) is valid ECMA-262 and only a warning: validators built on RE2 (Go, Rust)
reject it, JavaScript and Python ones take it.
"""

from __future__ import annotations

from functools import lru_cache

from .model import Severity

MAX_PATTERN = 10_000
MAX_MEM = 1 << 20
SYNTAX_ERRORS = ("missing )", "unexpected )", "missing ]", "trailing \\", "bad repetition operator")
ECMA_ONLY = ("(?=", "(?!", "(?<=", "(?<!", "\\c")


@lru_cache(maxsize=1024)
def pattern_problem(pattern: str) -> tuple[str, Severity | None] | None:
    """(what is wrong, severity: None for an error of the rule, WARNING for ECMA-only syntax), or None."""
    try:
        from ..schema import server_regex  # the project's safe path, once it is there
    except ImportError:
        server_regex = None
    if server_regex is not None:
        compiled = server_regex.compiled(pattern)
        if compiled.reason is None:
            return None
        if compiled.syntax_error:
            return f"is not a regular expression: {compiled.reason}", None
        return f"cannot be checked by RE2-based validators: {compiled.reason}", Severity.WARNING
    return _re2_problem(pattern)


def _re2_problem(pattern: str) -> tuple[str, Severity | None] | None:
    if len(pattern) > MAX_PATTERN:
        return f"is {len(pattern):,} characters long (not compiled)", Severity.WARNING
    import re2

    options = re2.Options()
    options.max_mem = MAX_MEM
    options.log_errors = False
    options.never_capture = True
    try:
        re2.compile(pattern, options)
    except re2.error as exc:
        detail = exc.args[0] if exc.args else "error"
        detail = detail.decode("utf-8", "replace") if isinstance(detail, bytes) else str(detail)
        if detail.startswith(SYNTAX_ERRORS) and not any(mark in pattern for mark in ECMA_ONLY):
            return f"is not a regular expression ({detail})", None
        return f"cannot be checked by RE2-based validators ({detail})", Severity.WARNING
    return None
