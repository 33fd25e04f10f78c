"""JSON TextAreas that do not crash the interpreter.

Textual's built-in JSON highlight query has a ``#eq?`` predicate with an escaped
quote; compiling it with tree-sitter 0.26 corrupts the heap and the process
segfaults soon after (reproduced with ``tree_sitter.Query`` alone). So every
JSON TextArea must be built here: same highlights, minus the conceal patterns
Textual never uses.
"""

from __future__ import annotations

from typing import Any

from textual.widgets import TextArea

from ... import textual_compat

JSON_HIGHLIGHTS = """
[ (true) (false) ] @boolean
(null) @json.null
(number) @number
(pair key: (string) @json.label)
(pair value: (string) @string)
(array (string) @string)
(string_content) @spell
(ERROR) @json.error
["," ":"] @punctuation.delimiter
[ "[" "]" "{" "}" ] @punctuation.bracket
(escape_sequence) @string.escape
"""


def use_safe_json(area: TextArea) -> TextArea:
    """Switch ``area`` to JSON highlighting with the safe query (its replaced documents are freed:
    textual_compat.py)."""
    textual_compat.install()
    area.update_highlight_query("json", JSON_HIGHLIGHTS)
    try:
        area.language = "json"
    except Exception:  # no tree-sitter JSON grammar: plain text is fine
        area.language = None
    return area


def json_code_editor(text: str = "", **kwargs: Any) -> TextArea:
    """``TextArea.code_editor(text, language="json", ...)``, safely."""
    kwargs.pop("language", None)
    return use_safe_json(TextArea.code_editor(text, language=None, **kwargs))


def json_text_area(text: str = "", **kwargs: Any) -> TextArea:
    """A plain ``TextArea`` (no line numbers by default) with JSON highlighting."""
    kwargs.pop("language", None)
    return use_safe_json(TextArea(text, language=None, **kwargs))
