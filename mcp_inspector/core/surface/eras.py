"""Comparing snapshots era by era: a two-era file (``snapshot --era both``, snapshotFormat 2)
against another, or against a one-era file or a live server in one era.

Each era is compared with the same era only. What one side has and the other does not is not
compared, and a note says so, except when the other side was asked in that era and the server
did not speak it (``erasNotSpoken``): an era the old server spoke and the new one does not is
breaking (its clients cannot connect), one it gained is compatible. Two one-era files compare
as they always did (core/surface/diff.py), whatever their eras.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from .diff import KINDS, Change, diff
from .snapshot import ERAS, FORMAT_ERAS, SnapshotError


@dataclass
class Side:
    """One side of a comparison: its surface in each era it records."""

    eras: dict[str, dict[str, Any]]
    not_spoken: list[str] = field(default_factory=list)
    two_era: bool = False

    @classmethod
    def of(cls, document: dict[str, Any]) -> Side:
        """A loaded snapshot document (snapshot.loads: its format is checked already)."""
        if document.get("snapshotFormat") == FORMAT_ERAS:
            return cls(dict(document["eras"]), list(document.get("erasNotSpoken") or []), two_era=True)
        return cls({str(document.get("era")): document})

    @property
    def era(self) -> str:
        """A one-era side's era ("None" when the file does not say)."""
        return next(iter(self.eras))


@dataclass
class Comparison:
    changes: list[Change]
    notes: list[str]  # what was not compared, and why
    compared: list[str] | None  # the eras compared; None for two one-era sides (compared whole)


def _in_era(changes: list[Change], era: str) -> list[Change]:
    return [replace(change, path=f"/eras/{era}{change.path}") for change in changes]


def compare(
    old: dict[str, Any], new: dict[str, Any], *, old_name: str = "OLD", new_name: str = "NEW", only: str | None = None
) -> Comparison:
    """The classified changes from ``old`` to ``new`` (snapshot documents). With a two-era side,
    era by era, each change's path under ``/eras/ERA``. ``only``: compare that era alone and say
    nothing of the others (check --era both compares each era in its own run). A one-era file
    whose era is neither legacy nor modern cannot be matched with a two-era one:
    :class:`SnapshotError`."""
    was, now = Side.of(old), Side.of(new)
    if not was.two_era and not now.two_era:
        return Comparison(diff(old, new), [], None)
    for side, name in ((was, old_name), (now, new_name)):
        if not side.two_era and side.era not in ERAS:
            raise SnapshotError(
                f"{name} records no era (its era member is {side.era}, not legacy or modern): "
                "it cannot be compared era by era with a two-era snapshot"
            )
    changes: list[Change] = []
    notes: list[str] = []
    compared: list[str] = []
    for era in ERAS:
        if only is not None and era != only:
            continue
        where = f"/eras/{era}"
        if era in was.eras and era in now.eras:
            changes += _in_era(diff(was.eras[era], now.eras[era]), era)
            compared.append(era)
        elif era in was.eras and era in now.not_spoken:
            changes.append(Change("breaking", where, f"the {era} era is no longer spoken (its clients cannot connect)"))
        elif era in now.eras and era in was.not_spoken:
            changes.append(Change("compatible", where, f"the {era} era is now spoken"))
        elif era in was.eras or era in now.eras:
            # a two-era side accounts for every era: the one lacking it records one era only
            has, lacks, side = (old_name, new_name, now) if era in was.eras else (new_name, old_name, was)
            notes.append(f"the {era} era was not compared: only {has} records it ({lacks} has the {side.era} era only)")
    order = {kind: index for index, kind in enumerate(KINDS)}
    changes.sort(key=lambda c: (order[c.kind], c.path, c.message))
    return Comparison(changes, notes, compared)


def surface_in(document: dict[str, Any], era: str | None) -> dict[str, Any]:
    """The one-era surface of ``document`` for ``era`` (a two-era file's body, or the document
    itself); an era it does not record gives an empty dict."""
    side = Side.of(document)
    if not side.two_era:
        return document
    return side.eras.get(str(era), {})
