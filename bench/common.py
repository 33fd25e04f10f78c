"""Shared helpers for the benchmarks: where things are, and honest statistics.

The machines these run on are shared and noisy, so every bench reports medians
over several repetitions together with the spread (min..max of the per-round
medians), and compares against a baseline measured in the same run, with the
variants interleaved so that a burst of background load hits both sides.
Nothing here asserts a time: benches print figures and ratios for humans.
"""

from __future__ import annotations

import os
import shutil
import statistics
import sys
from collections.abc import Sequence
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
BENCH = REPO / "bench"
MINIMAL_SERVER = BENCH / "servers" / "minimal_server.py"
MINIMAL_CLIENT = BENCH / "minimal_client.py"
PYTHON = sys.executable

# Run as `python bench/x.py` from anywhere. BENCH_SOURCE=/other/checkout measures another
# copy of mcp_inspector (e.g. `git archive` of an older commit) for before/after figures.
SOURCE = os.environ.get("BENCH_SOURCE") or str(REPO)
if SOURCE not in sys.path:
    sys.path.insert(0, SOURCE)


def minimal_server_cmd() -> list[str]:
    # -u is not needed: the server flushes after every frame.
    return [PYTHON, str(MINIMAL_SERVER)]


def find_server_everything() -> str | None:
    """@modelcontextprotocol/server-everything's bin: env, repo node_modules, /tmp/npmtest."""
    candidates = [
        os.environ.get("MCP_SERVER_EVERYTHING"),
        str(REPO / "node_modules" / ".bin" / "mcp-server-everything"),
        "/tmp/npmtest/node_modules/.bin/mcp-server-everything",
    ]
    for path in candidates:
        if path and Path(path).exists():
            return path
    return None


def server_everything_cmd() -> list[str] | None:
    bin_path = find_server_everything()
    node = shutil.which("node")
    if bin_path is None or node is None:
        return None
    return [node, bin_path, "stdio"]


def quantile(values: Sequence[float], q: float) -> float:
    """Nearest-rank quantile (q in 0..1) of unsorted values."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, int(round(q * (len(ordered) - 1)))))]


class Series:
    """Samples of one variant, grouped by round (one round = one batch of samples)."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.rounds: list[list[float]] = []

    def add_round(self, samples: Sequence[float]) -> None:
        self.rounds.append(list(samples))

    @property
    def all(self) -> list[float]:
        return [v for r in self.rounds for v in r]

    @property
    def round_medians(self) -> list[float]:
        return [statistics.median(r) for r in self.rounds if r]

    @property
    def median(self) -> float:
        """Median of the per-round medians: robust to one disturbed round."""
        return statistics.median(self.round_medians)

    @property
    def p95(self) -> float:
        return quantile(self.all, 0.95)

    @property
    def spread(self) -> tuple[float, float]:
        meds = self.round_medians
        return min(meds), max(meds)


def fmt_time(seconds: float) -> str:
    if seconds < 1e-3:
        return f"{seconds * 1e6:8.1f} us"
    if seconds < 1:
        return f"{seconds * 1e3:8.3f} ms"
    return f"{seconds:8.3f} s "


def fmt_bytes(n: float) -> str:
    for unit in ("B", "KiB", "MiB", "GiB"):
        if abs(n) < 1024 or unit == "GiB":
            return f"{n:7.1f} {unit}"
        n /= 1024
    return f"{n:.1f}"


def print_series_table(series: Sequence[Series], baseline: Series | None = None, p95: bool = True) -> None:
    """One line per variant: median, p95, per-round spread, and ratio to ``baseline``."""
    width = max(len(s.name) for s in series)
    header = f"  {'variant':<{width}}  {'median':>11}"
    if p95:
        header += f"  {'p95':>11}"
    header += f"  {'round medians min..max':>25}"
    if baseline is not None:
        header += "   ratio"
    print(header)
    for s in series:
        lo, hi = s.spread
        line = f"  {s.name:<{width}}  {fmt_time(s.median)}"
        if p95:
            line += f"  {fmt_time(s.p95)}"
        line += f"  {fmt_time(lo).strip():>11} .. {fmt_time(hi).strip():<11}"
        if baseline is not None:
            line += f"   {s.median / baseline.median:5.2f}x"
        print(line)


def paired_ratio(ours: Series, base: Series) -> tuple[float, float, float]:
    """Median, min and max over rounds of ours/base round medians (same round = same conditions)."""
    ratios = [o / b for o, b in zip(ours.round_medians, base.round_medians, strict=True)]
    return statistics.median(ratios), min(ratios), max(ratios)


def verdict(label: str, ratio: float, target: float) -> str:
    status = "meets" if ratio <= target else "MISSES"
    return f"{label}: {ratio:.2f}x ({status} the target of <= {target}x)"


def machine_note() -> str:
    load = os.getloadavg() if hasattr(os, "getloadavg") else (0, 0, 0)
    return f"python {sys.version.split()[0]}, {os.cpu_count()} cpus, load avg {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}"
