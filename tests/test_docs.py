"""The documentation: the generated pages (command line, keys, check rules) match the code, and the
README stays short and links only to pages that exist. (`mkdocs build --strict` itself runs in
scripts/run-tests --static.)"""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _gen_docs():
    spec = importlib.util.spec_from_file_location("gen_docs", ROOT / "scripts" / "gen-docs.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_generated_pages_are_current():
    # in a child process: the script fixes COLUMNS for argparse, which must not leak into the suite
    done = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "gen-docs.py"), "--check"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr


def test_the_cli_page_holds_every_commands_help_and_the_exit_codes():
    from mcp_inspector.cli.exit_codes import EPILOG
    from mcp_inspector.cli.parsing import COMMAND_HELP

    page = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    assert EPILOG.rstrip() in page
    for name in [*COMMAND_HELP, "proxy"]:  # proxy: a parser of its own (cli/commands/proxy.py)
        assert f"\n## {name}\n" in page
        assert f"usage: mcp-inspector {name}" in page


def test_the_keys_page_lists_every_binding_id_f1_shows():
    from mcp_inspector.tui.keymap import APP_KEYS

    page = (ROOT / "docs" / "keys.md").read_text(encoding="utf-8")
    for spec in APP_KEYS:
        assert f"| `{spec.id}` |" in page, spec.id


def test_check_names_a_stale_page_and_writes_nothing_then_the_script_rewrites_it(tmp_path, monkeypatch, capsys):
    for name in ("COLUMNS", "NO_COLOR", "PYTHON_COLORS"):  # the script sets them: undone after the test
        monkeypatch.setenv(name, "")
    module = _gen_docs()
    # the pages as the code would make them (the real ones are compared in a child process above:
    # making cli.md runs the CLI's entry point, which installs its signal handlers)
    fresh, current = tmp_path / "docs" / "fresh.md", tmp_path / "docs" / "current.md"
    fresh.parent.mkdir()
    fresh.write_text("stale\n", encoding="utf-8")
    current.write_text("same\n", encoding="utf-8")
    monkeypatch.setattr(module, "ROOT", tmp_path)
    monkeypatch.setattr(module, "pages", lambda: {fresh: "new\n", current: "same\n"})
    monkeypatch.setattr(sys, "argv", ["gen-docs.py", "--check"])
    assert module.main() == 1
    said = capsys.readouterr().err
    assert "docs/fresh.md" in said and "current.md" not in said
    assert fresh.read_text(encoding="utf-8") == "stale\n"  # --check writes nothing
    monkeypatch.setattr(sys, "argv", ["gen-docs.py"])
    assert module.main() == 0
    assert fresh.read_text(encoding="utf-8") == "new\n"
    monkeypatch.setattr(sys, "argv", ["gen-docs.py", "--check"])
    assert module.main() == 0


def test_the_readme_is_short_and_its_docs_links_exist():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= 150
    links = re.findall(r"\]\((docs/[^)#]+)(?:#[^)]*)?\)", readme)
    assert links, "the README links to the docs pages"
    for link in links:
        assert (ROOT / link).is_file(), link
    # every page of the site is reachable from the README
    nav = re.findall(r":\s*([\w-]+\.md)\s*$", (ROOT / "mkdocs.yml").read_text(encoding="utf-8"), re.M)
    assert {f"docs/{page}" for page in nav if page != "index.md"} <= set(links)
