"""Matching a server's regular expression: bounded in time and memory, with ECMA-262's meaning.

Every pattern a server supplies (JSON Schema ``pattern``, ``patternProperties`` names,
``propertyNames`` patterns, ``format: regex`` values) is matched here and nowhere else.

Why: Python's ``re`` backtracks. ``"^(a+)+$"`` against ``"a" * 34 + "!"`` runs for ever with the
GIL held, so no signal is handled (ctrl+c, SIGTERM, the TUI's ctrl+q) and the server is never shut
down. RE2 (``google-re2``) compiles a pattern to an automaton and matches in time linear in the
text, within a memory cap (``MAX_MEM``). When RE2's DFA runs out of that memory it falls back to
a simulation costing (program size × text length), so a match whose product is over ``BUDGET``
is not run: it is "not checked", said to the user, never passed silently.

JSON Schema patterns are ECMA-262 regexes, searched unanchored. ``translate`` rewrites one into
RE2's syntax, keeping ECMA's meaning where the two differ: ``.`` excludes \\r, U+2028 and U+2029 as
well as \\n; ``\\s`` is Unicode whitespace (RE2's is ASCII only); ``$`` is the end of the text
(Python's also matches before a final newline; RE2's does not, like ECMA's); ``[]`` matches
nothing and ``[^]`` anything; ``\\u`` with four hex digits (surrogate pairs joined),
``\\u{hex}``, ``\\c`` with a letter, ``\\0``;
a ``{`` that is not a quantifier is a literal; an unknown escape (``\\a``, ``\\z``) is the letter
itself; ``\\p{Letter}`` and ``\\p{Script=Greek}`` are given RE2's names. Text is matched by code
point (ECMA's ``u`` mode, as the JSON Schema test suite expects). What RE2 cannot express
(backreferences, lookahead, lookbehind) or will not accept (a repetition count over 1000, a
program over ``MAX_MEM``) makes the pattern "not checked" with the reason.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

MAX_MEM = 1 << 20  # RE2's memory for one compiled pattern: its programs and DFA cache (default 8 MB)
MAX_PATTERN = 10_000  # characters of pattern source; longer is not compiled
# Program instructions × text bytes. RE2's fallback simulation costs ~17 ns a unit here (a
# 906-instruction program against 1 MB took 15 s), so 10 M units is at worst ~0.2 s; a typical
# pattern (10-50 instructions, DFA) runs far under it and checks texts up to 200 KB-1 MB.
BUDGET = 10_000_000

_WHITESPACE = r"\t\n\x{0B}\f\r \x{A0}\x{1680}\x{2000}-\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000}\x{FEFF}"
_DOT = r"[^\n\r\x{2028}\x{2029}]"
_ANYTHING = r"[\x{0}-\x{10FFFF}]"
_NOTHING = r"[^\x{0}-\x{10FFFF}]"
_QUANTIFIER = re.compile(r"\{(\d+)(,(\d*))?\}")
_HEX2 = re.compile(r"[0-9A-Fa-f]{2}")
_HEX4 = re.compile(r"[0-9A-Fa-f]{4}")
_BRACED_HEX = re.compile(r"\{([0-9A-Fa-f]{1,6})\}")
_PROPERTY = re.compile(r"\{([A-Za-z_]+)(?:=([A-Za-z_]+))?\}")
_MODIFIERS = re.compile(r"\?[ims]*(?:-[ims]+)?:")
# Unicode property names ECMA accepts (long General_Category names) as RE2 spells them.
_CATEGORIES = {
    "Letter": "L",
    "Cased_Letter": "L",
    "Uppercase_Letter": "Lu",
    "Lowercase_Letter": "Ll",
    "Titlecase_Letter": "Lt",
    "Modifier_Letter": "Lm",
    "Other_Letter": "Lo",
    "Mark": "M",
    "Number": "N",
    "Decimal_Number": "Nd",
    "digit": "Nd",
    "Letter_Number": "Nl",
    "Other_Number": "No",
    "Punctuation": "P",
    "punct": "P",
    "Symbol": "S",
    "Math_Symbol": "Sm",
    "Currency_Symbol": "Sc",
    "Separator": "Z",
    "Space_Separator": "Zs",
    "Other": "C",
    "Control": "Cc",
    "cntrl": "Cc",
    "Format": "Cf",
    "Private_Use": "Co",
}
# RE2's parse errors that also mean the pattern is not a regex in ECMA (for ``format: regex``).
_SYNTAX_ERRORS = ("missing )", "unexpected )", "missing ]", "trailing \\", "bad repetition operator")


class Untranslatable(ValueError):
    """A valid ECMA-262 construct that RE2 cannot express (the message says which)."""


class BrokenPattern(Untranslatable):
    """Not a regular expression in any dialect (an unterminated class)."""


@dataclass(frozen=True, slots=True)
class Unchecked:
    """A pattern that was not matched, and why: said to the user, never taken as a pass or a fail."""

    pattern: str
    reason: str

    def __str__(self) -> str:
        return f"pattern {shown(self.pattern)} not checked: {self.reason}"


def shown(pattern: str, limit: int = 60) -> str:
    """A pattern as quoted in a message (long ones cut)."""
    text = pattern if len(pattern) <= limit else pattern[: limit - 1] + "…"
    return repr(text)


class ServerPattern:
    """One server pattern, translated and compiled once (``compiled`` caches them)."""

    __slots__ = ("_regexp", "_size", "reason", "source", "syntax_error")

    def __init__(self, source: str) -> None:
        self.source = source
        self.reason: str | None = None  # why it is never checked, or None
        self.syntax_error = False  # not a regex in ECMA either (as far as can be told)
        self._regexp = None
        self._size = 0
        if len(source) > MAX_PATTERN:
            self.reason = f"it is {len(source):,} characters long (at most {MAX_PATTERN:,} are compiled)"
            return
        try:
            translated = translate(source)
        except BrokenPattern as exc:
            self.reason, self.syntax_error = f"it is not a regex ({exc})", True
            return
        except Untranslatable as exc:
            self.reason = f"{exc} is beyond the bounded regex engine (RE2)"
            return
        import re2

        options = re2.Options()
        options.max_mem = MAX_MEM
        options.log_errors = False  # RE2 would write its own complaints onto stderr (the TUI's screen)
        options.never_capture = True  # a verdict is all we need: no submatch tracking
        try:
            self._regexp = re2.compile(translated, options)
        except re2.error as exc:
            detail = exc.args[0] if exc.args else "error"
            detail = detail.decode("utf-8", "replace") if isinstance(detail, bytes) else str(detail)
            self.reason = f"RE2 cannot compile it ({detail})"
            self.syntax_error = detail.startswith(_SYNTAX_ERRORS)
            return
        self._size = max(1, self._regexp.programsize)

    def search(self, text: str) -> bool | Unchecked:
        """Whether the pattern occurs in ``text`` (ECMA ``RegExp.test``), or why it was not checked."""
        if self._regexp is None:
            return Unchecked(self.source, self.reason or "it did not compile")
        data = text.encode("utf-8", "surrogatepass")  # a lone surrogate from JSON does not raise
        if self._size * max(1, len(data)) > BUDGET:
            return Unchecked(
                self.source, f"too costly for a text of {len(text):,} characters (a {self._size}-step program)"
            )
        return self._regexp.search(data) is not None


@lru_cache(maxsize=1024)
def compiled(source: str) -> ServerPattern:
    return ServerPattern(source)


def search(pattern: str, text: str) -> bool | Unchecked:
    """The one way a server's pattern is matched: True/False, or ``Unchecked`` with the reason."""
    return compiled(pattern).search(text)


def unsupported(pattern: str) -> str | None:
    """Why ``pattern`` is never checked whatever the text (for a hint beside a field), or None."""
    return compiled(pattern).reason


def is_regex(pattern: str) -> bool:
    """``format: regex``: False only for what is broken in any dialect (unbalanced, dangling ``\\``)."""
    return not compiled(pattern).syntax_error


# -- ECMA-262 to RE2 ------------------------------------------------------------------


def _literal(code: int) -> str:
    char = chr(code)
    return char if char.isascii() and char.isalnum() else f"\\x{{{code:X}}}"


def translate(source: str) -> str:
    """``source`` (ECMA-262) in RE2's syntax; raises Untranslatable for what RE2 lacks."""
    out: list[str] = []
    i, n = 0, len(source)
    while i < n:
        char = source[i]
        if char == "\\":
            item, i = _escape(source, i + 1, in_class=False)
            out.append(item)
            continue
        if char == "[":
            item, i = _class(source, i + 1)
            out.append(item)
            continue
        if char == "(":
            if source.startswith("(?", i):
                rest = source[i + 1 :]
                if rest.startswith(("?=", "?!")):
                    raise Untranslatable("a lookahead (?= or (?!")
                if rest.startswith(("?<=", "?<!")):
                    raise Untranslatable("a lookbehind (?<= or (?<!")
                named = re.match(r"\?<[A-Za-z_$][\w$]*>", rest)
                if named:
                    out.append("(?:")
                    i += 1 + named.end()
                    continue
                modifiers = _MODIFIERS.match(rest)
                if modifiers:
                    out.append("(" + modifiers.group())
                    i += 1 + modifiers.end()
                    continue
            out.append("(")
            i += 1
            continue
        if char == ".":
            out.append(_DOT)
        elif char == "{":
            quantifier = _QUANTIFIER.match(source, i)
            if quantifier:
                out.append(quantifier.group())
                i = quantifier.end()
                continue
            out.append(r"\{")
        elif char in "}]":
            out.append("\\" + char)
        elif char in "|*+?^$)":
            out.append(char)
        else:
            out.append(_literal(ord(char)))
        i += 1
    return "".join(out)


def _escape(source: str, i: int, in_class: bool) -> tuple[str, int]:
    """The escape after a backslash at ``i``: (RE2 text, next index). Inside a class the
    text is a class member (``\\s`` gives its ranges, not a bracketed class)."""
    if i >= len(source):
        return r"\\", i  # a trailing backslash: RE2 reports it
    char = source[i]
    if char in "dDwW":
        return "\\" + char, i + 1
    if char == "s":
        return (_WHITESPACE if in_class else f"[{_WHITESPACE}]"), i + 1
    if char == "S":
        if in_class:
            return "\0S", i + 1  # a marker: _class turns it into a union
        return f"[^{_WHITESPACE}]", i + 1
    if char in "bB":
        if in_class:
            return _literal(8 if char == "b" else ord("B")), i + 1
        return "\\" + char, i + 1
    simple = {"f": 12, "n": 10, "r": 13, "t": 9, "v": 11}
    if char in simple:
        return _literal(simple[char]), i + 1
    if char == "0" and not (i + 1 < len(source) and source[i + 1].isdigit()):
        return _literal(0), i + 1
    if char.isdigit():
        raise Untranslatable(f"a backreference (\\{char})")
    if char == "k" and source.startswith("<", i + 1):
        raise Untranslatable("a named backreference (\\k<...>)")
    if char == "c" and i + 1 < len(source) and source[i + 1].isascii() and source[i + 1].isalpha():
        return _literal(ord(source[i + 1]) % 32), i + 2
    if char == "x" and _HEX2.match(source, i + 1):
        return _literal(int(source[i + 1 : i + 3], 16)), i + 3
    if char == "u":
        return _unicode_escape(source, i)
    if char in "pP":
        prop = _PROPERTY.match(source, i + 1)
        if prop:
            key, value = prop.group(1), prop.group(2)
            if value is None:
                name = _CATEGORIES.get(key, key)
            elif key in ("General_Category", "gc"):
                name = _CATEGORIES.get(value, value)
            elif key in ("Script", "sc", "Script_Extensions", "scx"):
                name = value
            else:
                raise Untranslatable(f"the property \\{char}{prop.group()}")
            return f"\\{char}{{{name}}}", prop.end()
    if char == "c":
        return _literal(ord("\\")), i  # ECMA: a lone \c is a backslash, then "c"
    return _literal(ord(char)), i + 1  # an identity escape: \- \/ \. and (Annex B) \a, \z


def _unicode_escape(source: str, i: int) -> tuple[str, int]:
    """``\\u`` with four hex digits (a surrogate pair joined), ``\\u{hex}``, or a plain ``u``;
    ``i`` is at the ``u``."""
    braced = _BRACED_HEX.match(source, i + 1)
    if braced:
        code = int(braced.group(1), 16)
        if code > 0x10FFFF or 0xD800 <= code <= 0xDFFF:
            raise Untranslatable(f"the code point \\u{{{braced.group(1)}}}")
        return _literal(code), braced.end()
    if not _HEX4.match(source, i + 1):
        return "u", i + 1
    code, end = int(source[i + 1 : i + 5], 16), i + 5
    if 0xD800 <= code <= 0xDBFF and source.startswith("\\u", end) and _HEX4.match(source, end + 2):
        low = int(source[end + 2 : end + 6], 16)
        if 0xDC00 <= low <= 0xDFFF:
            return _literal(0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)), end + 6
    if 0xD800 <= code <= 0xDFFF:
        raise Untranslatable(f"a lone surrogate (\\u{code:04X})")
    return _literal(code), end


def _class(source: str, i: int) -> tuple[str, int]:
    """A character class; ``i`` is just after ``[``. ECMA's first ``]`` closes it (``[]`` is empty)."""
    negated = source.startswith("^", i)
    if negated:
        i += 1
    members: list[tuple[str, str]] = []  # ("char", text) may end a range; ("set", text) may not; ("-", "-")
    not_space = False
    while True:
        if i >= len(source):
            raise BrokenPattern("an unterminated character class")
        char = source[i]
        if char == "]":
            i += 1
            break
        if char == "\\":
            text, i = _escape(source, i + 1, in_class=True)
            if text == "\0S":
                not_space = True
                continue
            kind = "set" if text.startswith("\\") and text[1:2] in "dDwWpP" or text == _WHITESPACE else "char"
            members.append((kind, text))
            continue
        if char == "-":
            members.append(("-", "-"))
        else:
            members.append(("char", _literal(ord(char))))
        i += 1
    parts = []
    ranged = False  # the member before ended a range: a "-" after it is literal ([a-b-c])
    for index, (kind, text) in enumerate(members):
        if kind == "-":
            before = members[index - 1][0] if index > 0 else None
            after = members[index + 1][0] if index + 1 < len(members) else None
            joins = before == "char" and after == "char" and not ranged
            parts.append("-" if joins else r"\-")
            ranged = joins
            continue
        parts.append(text)
        ranged = ranged and parts[-2:-1] == ["-"]
    body = "".join(parts)
    if not_space:
        if negated:
            raise Untranslatable("\\S inside a negated class")
        return (f"(?:[^{_WHITESPACE}]|[{body}])" if body else f"[^{_WHITESPACE}]"), i
    if not body:
        return (_ANYTHING if negated else _NOTHING), i
    return (f"[^{body}]" if negated else f"[{body}]"), i
