"""First paint stays light: heavy modules load only when a view needs them."""

from __future__ import annotations

import json
import subprocess
import sys

from app_helpers import DEMO_SESSION

# Imported later on demand: Markdown (overview), JSON Schema validation (on send/result), HTTP, pydantic.
HEAVY = ("markdown_it", "jsonschema", "httpx", "pydantic", "mcp", "PIL")

PROBE = r"""
import json, sys
from mcp_inspector.tui.app import make_app
from mcp_inspector.tui.config import TuiConfig

app = make_app(open_file=sys.argv[1], config=TuiConfig())

def first_paint():
    try:
        app.main
    except LookupError:
        return
    print(json.dumps(sorted({name.split(".")[0] for name in sys.modules})), flush=True)
    app.exit()

app.call_later(lambda: app.set_interval(0.01, first_paint))
app.run(headless=True, size=(120, 40))
"""


def test_no_heavy_imports_before_first_paint(tmp_path):
    result = subprocess.run(
        [sys.executable, "-c", PROBE, str(DEMO_SESSION)],
        capture_output=True,
        text=True,
        timeout=60,
        env={"XDG_STATE_HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path), "PATH": "/usr/bin:/bin"},
    )
    assert result.returncode == 0, result.stderr[-2000:]
    loaded = set(json.loads(result.stdout.strip().splitlines()[-1]))
    assert "textual" in loaded and "mcp_inspector" in loaded
    assert not loaded & set(HEAVY), f"imported before first paint: {sorted(loaded & set(HEAVY))}"
