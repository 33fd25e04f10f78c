"""Editors for the parts of a form that change shape: list items, variants, map entries, nested forms.

``FormBody`` renders one (sub-)form; the composite editors here hold sub-forms of their
own and tell the enclosing body about edits with ``EditorChanged``.
"""

from .base import EditorChanged
from .body import FormBody, ListEditor
from .composites import EntriesField, ListField, NestedField, VariantField

__all__ = ["EditorChanged", "FormBody", "ListEditor", "ListField", "VariantField", "EntriesField", "NestedField"]
