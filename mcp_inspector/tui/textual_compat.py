"""Workarounds that touch Textual's private internals: ALL of them live here, each checked by
tests/tui/test_textual_compat.py, which fails loudly when an upgrade of Textual (or
tree-sitter) breaks one. The other internals the app reads are here too, each a small function
or a re-export (``FooterKey``, ``SelectOverlay``, ``WriterThread``, ``wait_for_idle``), checked by
the same tests.

**Every syntax-highlighted TextArea document leaked** (Textual 8.2.8, py-tree-sitter 0.25.2).
``SyntaxAwareDocument`` parses through ``Parser.parse(self._read_callable)``, a bound method
of the document: the ``Tree`` keeps that callable (so the document) alive, the document keeps
the tree (``_syntax_tree``), and ``Tree`` is invisible to the cycle collector, so a replaced
document and its tree are never freed. On top of that, py-tree-sitter keeps a reference to
every ``bytes`` object the callable returns (one per line read, each parse), so even a document
that is freed leaves its text behind. The composer, the raw-frame editor and the JSON-shown form
fields replace their documents on every ``load_text``: 200 form switches grew RSS by hundreds
of MB (bench/bench_json_editor_memory.py).

``install()`` (run when an InspectorApp is made, and by ``json_text.use_safe_json``) makes the
TextArea build ``BytesParsedDocument`` instead: the same document, but what it hands
``Parser.parse`` is the text's bytes (exactly the bytes the callable returns, line by line:
every line and its newline), not a callable. No callable, no cycle, no leaked chunks; parsing
from one buffer is no slower than one Python call per line.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from textual.app import App
    from textual.notifications import Notification
    from textual.widget import Widget

from textual import _ansi_sequences
from textual._wait import wait_for_idle
from textual.drivers._writer_thread import WriterThread
from textual.widgets import Footer, _text_area
from textual.widgets._footer import FooterKey
from textual.widgets._select import SelectOverlay
from textual.widgets.text_area import SyntaxAwareDocument

try:
    from textual._tree_sitter import get_language as _get_language
except ImportError:  # textual without the syntax extra
    _get_language = None  # type: ignore[assignment]  # the extra is absent: callers check for None

#: where TextArea looks up the document class it builds for a highlighted language
_PATCHED_MODULE: Any = _text_area
_PATCHED_NAME = "SyntaxAwareDocument"


class TextualCompatError(RuntimeError):
    """Textual no longer has what a workaround here relies on: see this module's doc."""


class BytesParsedDocument(SyntaxAwareDocument):
    """A ``SyntaxAwareDocument`` parsed from its bytes instead of through a read callback."""

    @property
    def _read_callable(self) -> bytes:  # type: ignore[override]
        # SyntaxAwareDocument.__init__ and .replace_range call self._parser.parse(self._read_callable[, old_tree]);
        # Parser.parse takes bytes as well as a callable. The callable yields every line followed by the
        # newline, the last line too: the same bytes here.
        return (self.text + self.newline).encode("utf-8")


def check() -> None:
    """Raise TextualCompatError if Textual changed what ``install`` relies on."""
    built = getattr(_PATCHED_MODULE, _PATCHED_NAME, None)
    if not (isinstance(built, type) and issubclass(built, SyntaxAwareDocument)):
        raise TextualCompatError(
            f"textual.widgets._text_area.{_PATCHED_NAME} is gone: TextArea builds its documents some other way "
            "now; see mcp_inspector/tui/textual_compat.py"
        )
    if not callable(SyntaxAwareDocument.__dict__.get("_read_callable")):
        raise TextualCompatError(
            "SyntaxAwareDocument._read_callable is gone: it no longer parses through a callback, so "
            "BytesParsedDocument may be unneeded (or wrong); see mcp_inspector/tui/textual_compat.py"
        )


def install() -> bool:
    """Make every TextArea build ``BytesParsedDocument`` for a highlighted language (idempotent).
    False, and nothing changed, if Textual no longer has what this relies on (the app still
    runs; tests/tui/test_textual_compat.py fails and says why)."""
    try:
        check()
    except TextualCompatError:
        return False
    if getattr(_PATCHED_MODULE, _PATCHED_NAME) is not BytesParsedDocument:
        setattr(_PATCHED_MODULE, _PATCHED_NAME, BytesParsedDocument)
    return True


def get_language(name: str) -> Any:
    """The tree-sitter language Textual has for ``name`` (None without tree-sitter or that grammar)."""
    return _get_language(name) if _get_language is not None else None


def syntax_tree(document: Any) -> Any:
    """The tree-sitter Tree of a TextArea's document (None for a plain-text one)."""
    return getattr(document, "_syntax_tree", None)


def installed() -> bool:
    return getattr(_PATCHED_MODULE, _PATCHED_NAME, None) is BytesParsedDocument


# -- the other internals the app reads ------------------------------------------------------
__all__ = ["FooterKey", "SelectOverlay", "WriterThread", "wait_for_idle"]


def notifications(app: App[object]) -> list[Notification]:
    """The toasts the app holds now (Textual keeps them in a private list, with no public view)."""
    return list(app._notifications)


def footer_composes_now(footer: Footer) -> None:
    """A Footer composes its keys only once ``_bindings_ready`` is set (at its first bindings
    change); one that shows a fixed set of keys sets it at once."""
    footer.set_reactive(Footer._bindings_ready, True)


def pending_children(widget: Widget) -> list[Widget]:
    """The children a widget will mount when composed (a footer's KeyGroup, not composed yet)."""
    return list(widget._pending_children)


def drop_key_sequences(sequences: list[str]) -> None:
    """Remove escape sequences from Textual's key table (for the whole process)."""
    table = _ansi_sequences.ANSI_SEQUENCES_KEYS
    for sequence in sequences:
        table.pop(sequence, None)  # type: ignore[attr-defined]  # a Mapping in its stubs, a dict at run time


def writer_file(writer: WriterThread) -> Any:
    """The file a Textual driver's writer thread writes to."""
    return writer._file


def writer_queue(writer: WriterThread) -> Any:
    """The queue a Textual driver's writer thread reads from."""
    return writer._queue


def driver_writer(driver: Any) -> WriterThread | None:
    return getattr(driver, "_writer_thread", None)


def set_driver_writer(driver: Any, writer: WriterThread) -> None:
    driver._writer_thread = writer
