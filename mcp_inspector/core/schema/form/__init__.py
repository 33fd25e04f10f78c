"""A tool's ``inputSchema`` as a tree of form fields, with no UI in it.

The UI renders a ``FormSpec`` and keeps *values* (what the widgets hold: raw
text for typed-in scalars, bools, enum values, lists); this module turns
values into ``tools/call`` arguments and back. The round trip JSON -> form ->
JSON never loses anything: a value the form cannot show faithfully (an unknown
key, a wrong type, an empty string in an optional field...) is kept as an
*extra* of its object and sent back unchanged.

Real servers' schemas are handled node by node with ``schema_resolve``: local
``$ref`` (followed lazily: a recursive reference becomes a ``nested`` field
built only when the user opens it), ``allOf`` merged, ``oneOf``/``anyOf`` as a
``variant`` field (one sub-form per alternative), nullable types (an explicit
null choice), titled and legacy enums, multi-selects, arrays of anything
(``list``: one sub-form per item), tuples (``prefixItems``) and free-form
object parts (``additionalProperties``/``patternProperties``: key/value
entries). Only a subtree the form really cannot show (if/then/else, ``not``, a
broken or remote ``$ref``...) becomes a ``kind="json"`` field, with a note.

Values are a flat dict keyed by each field's JSON path (``$.assignee.name``,
the same paths ``validation.validate`` reports). An object field's own entry
holds its extras (a dict of keys the form does not show). Dynamic parts hold
*sub-values*: dicts of the same shape for a sub-form whose root key is ``$``
(list items, the chosen variant, map entries, an opened nested field), built
with ``subform(spec, which)``. Extra keys: ``key + NULL`` is True when a
nullable field is explicitly null; ``key + EMPTY`` is True when an empty string
field sends ``""`` rather than nothing; ``key + ENTRIES`` holds an object's free-form
entries as ``[name, sub-values]`` pairs.
"""

from __future__ import annotations

from .check import (  # noqa: F401 - re-exported: the package's API
    check_arguments,
    issues_by_field,
    issues_under,
    validate_field,
    variant_issues,
)
from .defaults import fill_defaults, holds_default, may_default, same_json, strip_defaults  # noqa: F401
from .spec import (  # noqa: F401 - re-exported: the package's API
    CONSTRAINT_KEYS,
    EMPTY,
    ENTRIES,
    KINDS,
    MAX_NESTING,
    MISSING,
    NULL,
    OMIT,
    PRIMITIVE_KINDS,
    TEXT_KINDS,
    EnumOption,
    FieldSpec,
    FormSpec,
    FormValueError,
    VariantChoice,
    all_fallbacks,
    build_form,
    format_scalar,
    key_message,
    parse_scalar,
    subform,
)
from .values import (  # noqa: F401 - re-exported: the package's API
    arguments_to_values,
    default_values,
    empty_value,
    empty_values,
    hidden_values,
    sub_arguments,
    sub_values,
    switch_variant,
    values_to_arguments,
)
