"""core/surface/eras.py and snapshotFormat 2 (``snapshot --era both``): each era compared with the
same era, what only one side records named in a note, an era lost breaking and an era gained
compatible; a crafted two-era file (bad version, an era missing) refused with a reason; and the
``check --baseline`` side (core/checks/baseline.py) over a two-era baseline."""

from __future__ import annotations

import copy
import json

import pytest

from mcp_inspector.core.checks.baseline import baseline_findings, current_surface, lost_eras
from mcp_inspector.core.surface.eras import compare
from mcp_inspector.core.surface.snapshot import SnapshotError, build, build_eras, dumps, loads


def _body(era: str, tools: list[str]) -> dict:
    return build(
        server_info={"name": "s", "version": "1"},
        protocol_version="2026-07-28" if era == "modern" else "2025-11-25",
        era=era,
        capabilities={"tools": {}},
        instructions=None,
        lists={"tools": [{"name": name, "inputSchema": {"type": "object"}} for name in tools]},
    )


def _two(legacy: list[str] | None, modern: list[str] | None) -> dict:
    surfaces = {era: _body(era, tools) for era, tools in (("legacy", legacy), ("modern", modern)) if tools is not None}
    document = build_eras(surfaces, [era for era in ("legacy", "modern") if era not in surfaces])
    return loads(dumps(document))  # as read from a file


def test_two_era_files_compare_era_by_era_under_eras_paths():
    old, new = _two(["a", "b"], ["a", "b"]), _two(["a", "b"], ["a"])
    result = compare(old, new)
    assert [(c.kind, c.path) for c in result.changes] == [("breaking", "/eras/modern/tools/b")]
    assert result.compared == ["legacy", "modern"] and result.notes == []
    assert compare(old, old).changes == []
    # a surface moved from one era to the other is not "unchanged": eras never cross
    swapped = _two(["a"], ["a", "b"])
    assert {(c.kind, c.path) for c in compare(new, swapped).changes} == {
        ("breaking", "/eras/legacy/tools/b"),
        ("compatible", "/eras/modern/tools/b"),
    }


def test_an_era_lost_breaks_one_gained_is_compatible_and_one_sided_eras_are_noted():
    both, legacy_only = _two(["a"], ["a"]), _two(["a"], None)
    lost = compare(both, legacy_only)
    assert [(c.kind, c.path) for c in lost.changes] == [("breaking", "/eras/modern")]
    assert "no longer spoken" in lost.changes[0].message
    assert [(c.kind, c.path) for c in compare(legacy_only, both).changes] == [("compatible", "/eras/modern")]
    assert compare(both, legacy_only).compared == ["legacy"]
    nothing_shared = compare(_body("modern", ["a"]), legacy_only)
    # no era in common: the one the old file spoke is lost, the new one's other era is only noted
    assert nothing_shared.compared == []
    assert [(c.kind, c.path) for c in nothing_shared.changes] == [("breaking", "/eras/modern")]
    assert nothing_shared.notes == [
        "the legacy era was not compared: only NEW records it (OLD has the modern era only)"
    ]
    # a one-era file against a two-era one: its era is compared, the other is named, not guessed
    one = _body("legacy", ["a", "b"])
    mixed = compare(one, both, old_name="v1.json", new_name="v2.json")
    assert [(c.kind, c.path) for c in mixed.changes] == [("breaking", "/eras/legacy/tools/b")]
    assert mixed.notes == ["the modern era was not compared: only v2.json records it (v1.json has the legacy era only)"]
    assert compare(one, both, only="legacy").notes == []  # check --era both: each era in its own run
    # two one-era files compare as before: plain paths, whatever their eras
    plain = compare(one, _body("legacy", ["a"]))
    assert [c.path for c in plain.changes] == ["/tools/b"] and plain.compared is None
    eraless = dict(one, era=None)
    with pytest.raises(SnapshotError, match="OLD records no era"):
        compare(eraless, both)


@pytest.mark.parametrize(
    ("edit", "words"),
    [
        (lambda d: d.update(snapshotFormat=3), "snapshotFormat 3 is not one this mcp-inspector reads"),
        (lambda d: d.update(snapshotFormat=True), "snapshotFormat true is not one"),
        (lambda d: d.update(snapshotFormat="2"), 'snapshotFormat "2" is not one'),
        (lambda d: d["eras"].pop("modern"), "the modern era is missing: neither in eras nor in erasNotSpoken"),
        (lambda d: d.pop("eras"), "needs an eras object"),
        (lambda d: d["eras"].update(future={}), 'unknown era "future"'),
        (lambda d: d.update(erasNotSpoken=["modern"]), "the modern era is both recorded and listed as not spoken"),
        (lambda d: d.update(eras={}, erasNotSpoken=["legacy", "modern"]), "no era is recorded"),
        (lambda d: d["eras"]["legacy"].update(tools={}), "eras/legacy/tools is not a list"),
        (lambda d: d["eras"]["legacy"].update(era="modern"), 'eras/legacy says its era is "modern"'),
        (lambda d: d["eras"].update(modern=[]), "eras/modern is not an object"),
    ],
)
def test_a_crafted_two_era_file_is_refused_with_the_reason(edit, words):
    document = copy.deepcopy(_two(["a"], ["a"]))
    edit(document)
    with pytest.raises(SnapshotError, match=words):
        loads(json.dumps(document))


def test_check_baseline_over_a_two_era_file_compares_the_era_connected_in():
    baseline = _two(["a", "retired"], ["a"])
    seen = {"tools": [{"name": "a", "inputSchema": {"type": "object"}}]}  # prompts etc. not listed
    current, missing = current_surface(
        baseline,
        seen,
        server_info={"name": "s", "version": "1"},
        protocol_version="2025-11-25",
        era="legacy",
        capabilities={"tools": {}},
        instructions=None,
    )
    assert missing == [] and current["era"] == "legacy"
    found, notes = baseline_findings(baseline, current, source="base.json", missing=missing)
    assert [(f.rule, f.where) for f in found] == [("surface-breaking", "/eras/legacy/tools/retired")]
    assert any("the modern era was not compared: only base.json records it" in note for note in notes)
    _, notes_both = baseline_findings(baseline, current, source="base.json", missing=missing, era="legacy")
    assert not any("not compared" in note for note in notes_both)
    (lost,) = lost_eras(baseline, ["modern"], source="base.json")
    assert (lost.rule, lost.where, lost.era) == ("surface-breaking", "/eras/modern", "modern")
    assert lost_eras(_body("legacy", ["a"]), ["modern"], source="one.json") == []  # a one-era baseline
