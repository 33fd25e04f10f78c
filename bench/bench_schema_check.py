"""Server schemas at scale, and a server's regex (issue 19, items 1 and 14): before and after, one run.

    python bench/bench_schema_check.py [--rounds 5] [--properties 20000]

1. Is a ``--properties``-property inputSchema a valid schema? Baseline: jsonschema's own
   ``check_schema`` on the whole schema (what ran before, on the event loop, before the call
   was sent); ours: ``schema_check.check_schema``, the same verdict on a skeleton with one
   subschema per shape. Then the first ``validate`` of empty arguments (compile + 20,000 issues).
2. Routing N "required" issues to their fields in a N-field form: the old loop over every key
   for every issue (copied here as the baseline) against ``check.issues_by_field``, N = 2,000.
3. Warning lines the CLI prints for a 10,000-property tool called with no arguments: one per
   issue before, ``cli.output.repeats.summarized`` after.
4. ``^(a+)+$`` against ``"a" * k + "!"``: Python's ``re`` doubles with each ``a`` (k = 18..22 are
   run; k = 34, the hostile case, would take ~2**12 times k = 22, so it is extrapolated, not
   run), against ``server_regex.search`` at k = 34 and at 1 MB.

Nothing is asserted; medians of ``--rounds``, the variants interleaved.
"""

from __future__ import annotations

import argparse
import re
import statistics
import time

import common  # noqa: F401  (puts the repo, or BENCH_SOURCE, on sys.path)
import jsonschema

from mcp_inspector.cli.output.repeats import summarized
from mcp_inspector.core.schema import schema_check, server_regex
from mcp_inspector.core.schema.form import build_form
from mcp_inspector.core.schema.form.check import issues_by_field
from mcp_inspector.core.schema.validation import Issue, validate


def wide(count: int) -> dict:
    return {
        "type": "object",
        "properties": {f"p{i}": {"type": "string", "description": f"field {i}"} for i in range(count)},
        "required": [f"p{i}" for i in range(count)],
    }


def timed(function) -> float:
    started = time.perf_counter()
    function()
    return time.perf_counter() - started


def old_owner(path: str, keys: set[str]) -> str:  # the loop issues_by_field used before
    best = "$"
    for key in keys:
        if (path == key or path.startswith(key + ".") or path.startswith(key + "[")) and len(key) > len(best):
            best = key
    return best


def line(label: str, before: float, after: float) -> None:
    print(f"  {label:<44} before {before * 1000:10.1f} ms   after {after * 1000:8.2f} ms   {before / after:8.1f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--properties", type=int, default=20_000)
    args = parser.parse_args()
    cls = jsonschema.Draft202012Validator
    schema = wide(args.properties)

    print(f"1. check_schema of a {args.properties:,}-property inputSchema (median of {args.rounds})")
    whole, ours = [], []
    for _ in range(args.rounds):
        whole.append(timed(lambda: cls.check_schema(schema)))
        ours.append(timed(lambda: schema_check.check_schema(cls, schema, None)))
    line("jsonschema on the whole schema -> skeleton", statistics.median(whole), statistics.median(ours))
    first = timed(lambda: validate(wide(args.properties), {}))
    print(f"  first validate() of {{}} (compile + {args.properties:,} issues): {first * 1000:.0f} ms")

    count = 2_000
    form = build_form(wide(count))
    issues = [Issue("$", f"'p{i}' is a required property") for i in range(count)]
    keys = {spec.key for spec in form.root.walk()}
    paths = [f"$.p{i}" for i in range(count)]
    print(f"2. {count:,} issues routed to the fields of a {count:,}-field form")
    old, new = [], []
    for _ in range(args.rounds):
        old.append(timed(lambda: [old_owner(path, keys) for path in paths]))
        new.append(timed(lambda: issues_by_field(form, issues)))
    line("every key per issue -> prefixes looked up", statistics.median(old), statistics.median(new))

    lines = [f"argument $: 'p{i}' is a required property (sending anyway)" for i in range(10_000)]
    print(f"3. CLI warning lines for 10,000 missing arguments: before {len(lines):,}, after {len(summarized(lines))}")

    print("4. ^(a+)+$ against 'a' * k + '!'")
    evil = re.compile("^(a+)+$")
    samples = {}
    for k in (18, 20, 22):
        samples[k] = statistics.median(timed(lambda k=k: evil.search("a" * k + "!")) for _ in range(3))
        print(f"  Python re, k = {k}: {samples[k] * 1000:10.1f} ms")
    print(f"  Python re, k = 34: ~{samples[22] * 2**12:,.0f} s extrapolated (not run: the GIL is held throughout)")
    text = "a" * 34 + "!"
    server_regex.search("^(a+)+$", text)  # compiled once, cached
    ours_k = statistics.median(timed(lambda: server_regex.search("^(a+)+$", text)) for _ in range(101))
    big = "a" * 1_000_000 + "!"
    ours_big = statistics.median(timed(lambda: server_regex.search("^(a+)+$", big)) for _ in range(5))
    print(f"  RE2 (server_regex), k = 34: {ours_k * 1000:.4f} ms; k = 1,000,000: {ours_big * 1000:.1f} ms")


if __name__ == "__main__":
    main()
