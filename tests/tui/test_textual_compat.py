"""The workarounds of mcp_inspector/tui/textual_compat.py, each checked so that an upgrade of
Textual or tree-sitter that breaks one fails HERE, loudly, with what to look at.

The one there is: a highlighted TextArea's replaced document (and its syntax tree and text)
was never freed. These tests load texts into real TextAreas (a bare one, the composer of the
whole app on the demo server) and assert, through weak references, that the old documents are
collected; and that parsing from bytes gives the very tree Textual's callback parse gives,
after edits too.
"""

from __future__ import annotations

import gc
import json
import weakref

import pytest
from app_helpers import SIZE, choose_tool, live_app, wait_for_tools
from textual.app import App, ComposeResult
from textual.widgets import TextArea
from textual.widgets.text_area import SyntaxAwareDocument

from mcp_inspector.tui import textual_compat
from mcp_inspector.tui.look.theme_vars import THEME_VARIABLE_DEFAULTS
from mcp_inspector.tui.textual_compat import BytesParsedDocument, get_language, syntax_tree
from mcp_inspector.tui.widgets.result.json_text import json_text_area

pytestmark = pytest.mark.anyio

BIG = json.dumps({f"key_{i}": {"values": list(range(12)), "name": f"név {i} ✓"} for i in range(300)}, indent=2)


class AreaApp(App):
    def get_theme_variable_defaults(self) -> dict[str, str]:
        return dict(THEME_VARIABLE_DEFAULTS)

    def compose(self) -> ComposeResult:
        yield json_text_area("{}")


def test_textual_still_has_what_the_workaround_relies_on():
    """If this fails, read textual_compat.py's doc: Textual's TextArea no longer builds its
    documents as ``_text_area.SyntaxAwareDocument(text, language)``, or SyntaxAwareDocument no
    longer parses through ``self._read_callable``. Check whether the leak is gone upstream (then
    drop the workaround) or adapt it."""
    textual_compat.check()
    assert "_read_callable" in SyntaxAwareDocument.__dict__
    assert textual_compat.install() is True and textual_compat.installed()


def test_a_bytes_parse_gives_the_tree_the_callback_parse_gives_also_after_edits():
    language = get_language("json")
    assert language is not None
    ours, theirs = BytesParsedDocument(BIG, language), SyntaxAwareDocument(BIG, language)
    assert str(syntax_tree(ours).root_node) == str(syntax_tree(theirs).root_node)
    for start, end, text in (((1, 2), (1, 2), '"new": [1, "✓ é"],\n  '), ((5, 0), (9, 3), ""), ((0, 0), (0, 1), "[")):
        ours.replace_range(start, end, text)
        theirs.replace_range(start, end, text)
        assert ours.text == theirs.text
        assert str(syntax_tree(ours).root_node) == str(syntax_tree(theirs).root_node)
    assert syntax_tree(ours).root_node.has_error  # "[" opened what "}" closes: both trees say so


async def test_a_replaced_document_is_freed_and_the_new_one_is_highlighted():
    app = AreaApp()
    async with app.run_test(size=SIZE) as pilot:
        area = app.query_one(TextArea)
        olds = []
        for i in range(20):
            olds.append(weakref.ref(area.document))
            area.load_text(BIG.replace("key_", f"k{i}_"))
        await pilot.pause()
        gc.collect()
        assert [ref for ref in olds if ref() is not None] == []  # every replaced document was freed
        assert isinstance(area.document, BytesParsedDocument) and area.is_syntax_aware
        area.insert('"typed": true,\n', (1, 0))
        expected = str(syntax_tree(BytesParsedDocument(area.text, get_language("json"))).root_node)
        assert str(syntax_tree(area.document).root_node) == expected


async def test_the_composers_json_editor_frees_the_documents_of_the_forms_it_showed():
    """Picking tools in turn (the demo's), three passes: no document the composer's JSON editor
    showed stays alive once replaced (each pass added 40 held documents before)."""
    app = live_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_tools(pilot, app)
        names = [tool["name"] for tool in app.main.tool_list.tools][:8]
        editor = app.main.composer.json_editor
        olds = []
        for _ in range(3):
            for name in names:
                olds.append(weakref.ref(editor.document))
                await choose_tool(pilot, app, name)
        await pilot.pause()
        gc.collect()
        alive = [ref() for ref in olds if ref() is not None and ref() is not editor.document]
        assert alive == []
        assert isinstance(editor.document, BytesParsedDocument)


def test_the_other_internals_the_app_reads_are_still_there() -> None:
    """Each of textual_compat's small accessors against the Textual installed: an upgrade that
    renames one fails here, not as a blank footer, a lost toast or a hung terminal at SIGHUP."""
    import io

    from textual import _ansi_sequences
    from textual.reactive import Reactive
    from textual.widgets import Footer, Static

    from mcp_inspector.tui.textual_compat import (
        WriterThread,
        driver_writer,
        drop_key_sequences,
        notifications,
        pending_children,
        set_driver_writer,
        writer_file,
        writer_queue,
    )

    assert isinstance(Footer.__dict__.get("_bindings_ready"), Reactive), "Footer._bindings_ready is gone"
    assert pending_children(Static()) == []
    assert notifications(App()) == []
    table = _ansi_sequences.ANSI_SEQUENCES_KEYS
    assert isinstance(table, dict) and "\x1b[A" in table, "Textual's key table moved"
    table["\x1bmcp-inspector-test"] = ("escape",)
    drop_key_sequences(["\x1bmcp-inspector-test"])
    assert "\x1bmcp-inspector-test" not in table
    out = io.StringIO()
    writer = WriterThread(out)
    assert writer_file(writer) is out
    queue = writer_queue(writer)
    for part in ("mutex", "not_empty", "not_full", "queue"):
        assert hasattr(queue, part), f"the writer thread's queue has no {part}"

    class Driver:
        _writer_thread = None

    driver = Driver()
    assert driver_writer(driver) is None
    set_driver_writer(driver, writer)
    assert driver_writer(driver) is writer
