"""Each check fixture (tests/servers/check/, one defect each) draws its rule; the clean ones draw
nothing at warning or error. The rule a fixture draws is in its docstring: "(draws RULE)"."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from cli_helpers import assert_no_traceback, cli

from mcp_inspector.core.checks.catalog import RULES

FIXTURE_DIR = Path(__file__).resolve().parents[1] / "servers" / "check"
EXTRA_ARGS = {
    "structured_mismatch": ["--call", "add", "a=1", "b=2"],
    "dual_era_mismatch": ["--era", "both"],
    "progress_backwards": ["--call", "count"],
}
# what a defect also breaks by nature (an outputSchema of type array fails the schema too)
ALSO = {"schema-violation"}


def fixtures() -> dict[str, str | None]:
    found = {}
    for path in sorted(FIXTURE_DIR.glob("*.py")):
        if path.stem == "base":
            continue
        head = path.read_text(encoding="utf-8").split('"""')[1]
        match = re.search(r"\(draws ([a-z0-9-]+)\)", head)
        found[path.stem] = match.group(1) if match else None
    return found


FIXTURES = fixtures()


def test_there_are_at_least_30_defect_fixtures_and_some_clean_ones():
    defects = [name for name, rule in FIXTURES.items() if rule]
    assert len(defects) >= 30 and len(FIXTURES) - len(defects) >= 2
    assert all(rule in RULES for rule in FIXTURES.values() if rule)


@pytest.mark.parametrize("name", sorted(FIXTURES))
def test_fixture_draws_its_rule(name):
    rule = FIXTURES[name]
    result = cli(
        "check", "--json", *EXTRA_ARGS.get(name, []), "--", "python3", str(FIXTURE_DIR / f"{name}.py"), timeout=120
    )
    assert_no_traceback(result)
    document = json.loads(result.stdout)
    serious = [f for f in document["findings"] if f["severity"] in ("error", "warning")]
    if rule is None:
        assert serious == [], serious
        assert result.returncode == 0
        return
    drawn = {f["rule"] for f in document["findings"]}
    assert rule in drawn, document["findings"]
    assert {f["rule"] for f in serious} <= {rule} | ALSO, serious
    assert result.returncode == (8 if document["summary"]["error"] else 0)
