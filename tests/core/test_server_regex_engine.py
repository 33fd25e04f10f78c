"""core/schema/server_regex.py: a server's pattern is matched by RE2 with ECMA-262's meaning, in
bounded time, or said to be unchecked with the reason (issue 19, item 1); and jsonschema's
regex keywords go through it (regex_keywords.py)."""

from __future__ import annotations

import faulthandler
import time

import pytest

from mcp_inspector.core.schema import server_regex
from mcp_inspector.core.schema.form import build_form, validate_field
from mcp_inspector.core.schema.server_regex import Unchecked, search, unsupported
from mcp_inspector.core.schema.validation import check, validate

EVIL = "^(a+)+$"
EVIL_TEXT = "a" * 34 + "!"


@pytest.fixture(autouse=True)
def _watchdog():
    """A C thread's guard: with the GIL held by a backtracking ``re`` no Python timeout would fire."""
    faulthandler.dump_traceback_later(60, exit=True)
    yield
    faulthandler.cancel_dump_traceback_later()


@pytest.mark.parametrize(
    ("pattern", "text", "expected"),
    [
        (EVIL, EVIL_TEXT, False),
        (EVIL, "a" * 34, True),
        ("^[a-z]+$", "abc\n", False),  # ECMA's $ is the end (Python's re also matches before a final \n)
        ("a.c", "a\rc", False),  # ECMA's . excludes \r, U+2028, U+2029 as well as \n
        ("a.c", "a\u2028c", False),
        ("a.c", "abc", True),
        ("^\\s$", "\u00a0", True),  # ECMA's \s is Unicode whitespace (RE2's is ASCII)
        ("^\\s$", "\ufeff", True),
        ("^\\S$", "\u00a0", False),
        ("^[\\s\\S]+$", "a \n\u2028", True),
        ("^[^\\s]+$", "ab\u3000", False),
        ("[]", "a", False),  # matches nothing
        ("^[^]$", "\n", True),  # matches anything
        ("^\\u00e9$", "é", True),
        ("^\\uD83D\\uDE00$", "😀", True),  # a surrogate pair is one code point
        ("^\\u{1F600}$", "😀", True),
        ("^.$", "😀", True),
        ("a{", "a{", True),  # not a quantifier: a literal
        ("^x{2,3}$", "xx", True),
        ("^x{2,3}$", "xxxx", False),
        ("^\\cJ$", "\n", True),
        ("^\\0$", "\0", True),
        ("^[\\w-.]+$", "a-b.c", True),  # the - beside a class escape is a literal
        ("^[a-c-e]+$", "-e", True),
        ("^[a-c-e]+$", "d", False),
        ("^[\\b]$", "\b", True),  # in a class \b is a backspace
        ("\\bfoo\\b", "a foo b", True),
        ("^\\p{Letter}+$", "héllo", True),
        ("^\\p{L}+$", "123", False),
        ("^\\p{Script=Greek}+$", "αβγ", True),
        ("(?<year>\\d{4})-", "2024-", True),
        ("^\\/\\-\\.$", "/-.", True),
        ("^\\d+$", "١٢", False),  # \d is ASCII
        ("^\\a\\z$", "az", True),  # Annex B identity escapes
        ("x", "\ud800x", True),  # a lone surrogate from JSON does not raise
        ("b", "abc", True),  # unanchored search
    ],
)
def test_ecma_meaning(pattern, text, expected):
    assert search(pattern, text) is expected


@pytest.mark.parametrize(
    ("pattern", "reason"),
    [
        ("^(a)\\1$", "a backreference (\\1) is beyond the bounded regex engine (RE2)"),
        ("(?<n>a)\\k<n>", "a named backreference (\\k<...>) is beyond the bounded regex engine (RE2)"),
        ("(?=a)", "a lookahead (?= or (?! is beyond the bounded regex engine (RE2)"),
        ("(?<!a)b", "a lookbehind (?<= or (?<! is beyond the bounded regex engine (RE2)"),
        ("\\uD800", "a lone surrogate (\\uD800) is beyond the bounded regex engine (RE2)"),
        ("a{1001}", "RE2 cannot compile it (invalid repetition size: {1001})"),
        ("(", "RE2 cannot compile it (missing ): ()"),
        ("[a", "it is not a regex (an unterminated character class)"),
        ("a" * 10_001, "it is 10,001 characters long (at most 10,000 are compiled)"),
    ],
)
def test_what_re2_cannot_do_is_unchecked_with_the_reason(pattern, reason):
    assert unsupported(pattern) == reason
    verdict = search(pattern, "a")
    assert isinstance(verdict, Unchecked) and verdict.reason == reason


def test_a_match_over_the_budget_is_not_run_but_said():
    """RE2's DFA can run out of its memory and fall back to a simulation costing program size x
    text length (a 906-step program against 1 MB took 15 s here): over BUDGET it is not run."""
    text = "ab" * 200_000
    started = time.perf_counter()
    verdict = search("a[ab]{900}c", text)
    assert time.perf_counter() - started < 1
    assert isinstance(verdict, Unchecked)
    assert verdict.reason.startswith("too costly for a text of 400,000 characters")
    assert search("a[ab]{900}c", "ab" * 1000) is False  # a short text is checked


def test_re2_memory_is_capped_and_quiet(capfd):
    compiled = server_regex.compiled("(?:a[ab]{20}b){40}")
    assert compiled.source and server_regex.MAX_MEM == 1 << 20
    assert isinstance(search("^(a)\\1$", "aa"), Unchecked)  # RE2 would log its complaint to stderr
    assert capfd.readouterr().err == ""


def test_the_evil_pattern_takes_microseconds():
    started = time.perf_counter()
    for _ in range(100):
        assert validate({"type": "string", "pattern": EVIL}, EVIL_TEXT) != []
    assert (time.perf_counter() - started) / 100 < 0.05


# -- through jsonschema --------------------------------------------------------------


def test_pattern_properties_property_names_and_additional_properties():
    schema = {
        "type": "object",
        "propertyNames": {"pattern": EVIL},
        "patternProperties": {EVIL: {"type": "integer"}},
        "additionalProperties": False,
    }
    messages = sorted(issue.message for issue in validate(schema, {EVIL_TEXT: 1, "aaa": "x"}))
    assert messages == [
        f"'{EVIL_TEXT}' does not match '{EVIL}'",
        f"'{EVIL_TEXT}' does not match any of the regexes: '{EVIL}'",
        "'x' is not of type 'integer'",
    ]


def test_unevaluated_properties_beside_pattern_properties():
    schema = {"type": "object", "patternProperties": {EVIL: {}}, "unevaluatedProperties": False}
    assert [i.message for i in validate(schema, {EVIL_TEXT: 1, "aa": 2})] == [
        f"Unevaluated properties are not allowed ('{EVIL_TEXT}' was unexpected)"
    ]
    nested = {"allOf": [{"patternProperties": {"^x": {}}}], "unevaluatedProperties": False}
    assert validate(nested, {"xa": 1}) == []
    assert [i.message for i in validate(nested, {"xa": 1, "y": 2})] == [
        "Unevaluated properties are not allowed ('y' was unexpected)"
    ]


def test_an_unchecked_pattern_is_a_note_not_an_issue():
    verdict = check({"type": "object", "properties": {"v": {"type": "string", "pattern": "^(a)\\1$"}}}, {"v": "ab"})
    assert verdict.issues == []
    assert verdict.unchecked == [
        "pattern '^(a)\\\\1$' not checked: a backreference (\\1) is beyond the bounded regex engine (RE2)"
    ]
    # an unchecked patternProperties pattern applies to no key, and is said; no false "additional" error
    names = check({"patternProperties": {"(?=x)": {"type": "integer"}}, "additionalProperties": False}, {"x": "s"})
    assert names.issues == [] and len(names.unchecked) == 1


def test_an_ecma_pattern_python_cannot_compile_does_not_make_the_schema_invalid():
    """check_schema's ``format: regex`` is ours too: ``\\p{L}`` is ECMA, not Python's re."""
    schema = {"type": "string", "pattern": "^\\p{L}+$"}
    assert validate(schema, "héllo") == []
    assert validate(schema, "123") != []
    assert validate({"type": "string", "format": "regex"}, "(") != []  # broken in every dialect
    assert validate({"type": "string", "format": "regex"}, EVIL) == []


# -- the form ------------------------------------------------------------------------


def _field(schema: dict):
    return build_form({"type": "object", "properties": {"f": schema}}).root.children[0]


def test_the_form_field_check_is_bounded_and_says_what_it_did_not_check():
    evil = _field({"type": "string", "pattern": EVIL})
    assert validate_field(evil, EVIL_TEXT) == f"must match the pattern {EVIL}"
    assert validate_field(evil, "aaa") is None
    backref = _field({"type": "string", "pattern": "^(a)\\1$"})
    assert "matches ^(a)\\1$ (not checked: a backreference (\\1) is beyond the bounded regex engine (RE2))" in (
        backref.hints
    )
    assert validate_field(backref, "ab").startswith("pattern '^(a)\\\\1$' not checked")


def test_a_free_form_entry_name_is_checked_by_the_bounded_engine():
    from mcp_inspector.core.schema.form import key_message

    spec = build_form({"type": "object", "patternProperties": {EVIL: {"type": "string"}}}).root
    assert key_message(spec, EVIL_TEXT) == f"the name must match {EVIL}"
    assert key_message(spec, "aaaa") is None
