"""RFC 6570 expressions as the spec writes them (section 2.2), for the checks the
``uritemplate`` library leaves out: it takes ``{a b}``, ``{+}`` or ``{a,}`` and expands
them to something, where a user should hear that the template is wrong."""

from __future__ import annotations

import re

EXPRESSION = re.compile(r"\{[^{}]*\}")
_VARSPEC = r"(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2})+(?:\.(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2})+)*(?::[1-9][0-9]{0,3}|\*)?"
VALID_EXPRESSION = re.compile(r"\{[+#./;?&]?" + _VARSPEC + r"(?:," + _VARSPEC + r")*\}")


def is_template(uri: str) -> bool:
    """A URI holding an expression (a literal brace cannot be in a URI, RFC 3986)."""
    return EXPRESSION.search(uri) is not None


def expression_problem(template: str) -> str | None:
    """The first expression of ``template`` that is not RFC 6570, in words (None: all are)."""
    for expression in EXPRESSION.findall(template):
        if not VALID_EXPRESSION.fullmatch(expression):
            return (
                f"{expression} in {template} is not an RFC 6570 expression "
                "(variable names are letters, digits, _ and %XX, with an optional :N or *)"
            )
    return None
