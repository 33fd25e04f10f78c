#!/usr/bin/env python3
"""Collect real tool input schemas into ``tests/fixtures/schemas/`` (one JSON file per server).

Why: the form engine must cope with what servers really send (``$defs``/``$ref``,
``anyOf`` with null, arrays of objects...), so its tests run on schemas captured from
real servers, not on schemas we imagined. Each server is started and asked for
``tools/list`` through our own CLI (``python -m mcp_inspector tools --json``), so the
corpus is exactly what the inspector sees.

Usage::

    python scripts/collect_schemas.py --install            # install the servers into /tmp, then collect
    python scripts/collect_schemas.py                      # collect from an earlier install
    python scripts/collect_schemas.py --only server-memory # one server

Servers are installed only under /tmp (``--npm-dir``, ``--venv``), never into the
repository. They run with proxy variables pointing at a closed local port, so a server
that tried to reach the network at start-up would fail instead of fetching anything;
only ``tools/list`` is ever called. ``hand_written_hard.json`` is not touched.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
OUT_DIR = REPO / "tests" / "fixtures" / "schemas"

NPM_PACKAGES = {
    "server-filesystem": "@modelcontextprotocol/server-filesystem",
    "server-memory": "@modelcontextprotocol/server-memory",
    "server-sequential-thinking": "@modelcontextprotocol/server-sequential-thinking",
    "server-github": "@modelcontextprotocol/server-github",
    "server-postgres": "@modelcontextprotocol/server-postgres",
}
PYPI_PACKAGES = {
    "mcp-server-time": "mcp-server-time",
    "mcp-server-fetch": "mcp-server-fetch",
    "mcp-server-git": "mcp-server-git",
}
# Any HTTP(S) request a server makes goes to a closed port on this machine and fails.
NO_NETWORK_ENV = {
    "HTTP_PROXY": "http://127.0.0.1:9",
    "HTTPS_PROXY": "http://127.0.0.1:9",
    "ALL_PROXY": "http://127.0.0.1:9",
    "http_proxy": "http://127.0.0.1:9",
    "https_proxy": "http://127.0.0.1:9",
    "all_proxy": "http://127.0.0.1:9",
    "NO_PROXY": "",
    "no_proxy": "",
}


@dataclass
class Source:
    """One server to collect: the file stem, the command line and where it comes from."""

    stem: str
    command: list[str]
    origin: str  # e.g. "npm @modelcontextprotocol/server-memory"
    package_version: str | None


def npm_version(npm_dir: Path, package: str) -> str | None:
    manifest = npm_dir / "node_modules" / package / "package.json"
    try:
        return json.loads(manifest.read_text())["version"]
    except (OSError, ValueError, KeyError):
        return None


def pip_version(venv: Path, package: str) -> str | None:
    try:
        out = subprocess.run(
            [str(venv / "bin" / "python"), "-c", f"import importlib.metadata as m; print(m.version({package!r}))"],
            capture_output=True,
            text=True,
            timeout=30,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return out.stdout.strip() or None


def install(npm_dir: Path, venv: Path, everything_dir: Path) -> None:
    """Install every server under /tmp; idempotent (npm and pip skip what is there)."""
    for target in (npm_dir, venv, everything_dir):
        if not str(target.resolve()).startswith("/tmp/"):
            sys.exit(f"refusing to install outside /tmp: {target}")
    npm_dir.mkdir(parents=True, exist_ok=True)
    subprocess.run(
        ["npm", "install", "--no-audit", "--no-fund", "--prefix", str(npm_dir), *NPM_PACKAGES.values()], check=True
    )
    everything_dir.mkdir(parents=True, exist_ok=True)
    subprocess.run(
        [
            "npm",
            "install",
            "--no-audit",
            "--no-fund",
            "--prefix",
            str(everything_dir),
            "@modelcontextprotocol/server-everything",
        ],
        check=True,
    )
    if not (venv / "bin" / "python").exists():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    subprocess.run([str(venv / "bin" / "pip"), "install", "--quiet", *PYPI_PACKAGES.values()], check=True)


def sources(npm_dir: Path, venv: Path, everything_dir: Path, scratch: Path) -> list[Source]:
    python = sys.executable
    bin_dir = npm_dir / "node_modules" / ".bin"
    found = [
        Source(
            "demo",
            [python, "-m", "mcp_inspector.demo"],
            "mcp-inspector built-in demo server (python -m mcp_inspector.demo)",
            None,
        ),
        Source(
            "sdk_server",
            [python, str(REPO / "tests" / "servers" / "sdk_server.py")],
            "tests/servers/sdk_server.py (mcp Python SDK, pydantic-generated schemas)",
            None,
        ),
        Source(
            "server-everything",
            ["node", str(everything_dir / "node_modules" / ".bin" / "mcp-server-everything"), "stdio"],
            "npm @modelcontextprotocol/server-everything",
            npm_version(everything_dir, "@modelcontextprotocol/server-everything"),
        ),
    ]
    extra_args = {"server-filesystem": [str(scratch)], "server-postgres": ["postgresql://127.0.0.1:9/none"]}
    for stem, package in NPM_PACKAGES.items():
        command = ["node", str(bin_dir / f"mcp-{stem}"), *extra_args.get(stem, [])]
        found.append(Source(stem, command, f"npm {package}", npm_version(npm_dir, package)))
    for stem, package in PYPI_PACKAGES.items():
        found.append(Source(stem, [str(venv / "bin" / stem)], f"PyPI {package}", pip_version(venv, package)))
    return found


def server_info(record: Path) -> dict:
    """serverInfo from the initialize reply in a ``--record`` session file."""
    for line in record.read_text().splitlines():
        entry = json.loads(line)
        if entry.get("dir") != "in" or entry.get("kind") != "response":
            continue
        reply = json.loads(entry["raw"])
        info = (reply.get("result") or {}).get("serverInfo")
        if isinstance(info, dict):
            return info
    return {}


def collect(source: Source, scratch: Path) -> dict:
    record = scratch / f"{source.stem}.jsonl"
    command = [
        sys.executable,
        "-m",
        "mcp_inspector",
        "tools",
        "--json",
        "-q",
        "--timeout",
        "30",
        "--record",
        str(record),
        "--",
        *source.command,
    ]
    env = {**os.environ, **NO_NETWORK_ENV}
    done = subprocess.run(command, capture_output=True, text=True, timeout=90, env=env, cwd=scratch)
    if done.returncode != 0:
        raise RuntimeError(f"exit {done.returncode}: {done.stderr.strip()[-600:]}")
    listed = json.loads(done.stdout)["tools"]
    info = server_info(record)
    version = source.package_version or info.get("version") or "unknown"
    return {
        "server": info.get("name") or source.stem,
        "version": version,
        "source": f"{source.origin}; tools/list via `python -m mcp_inspector tools --json`, "
        f"serverInfo {info.get('name')!s} {info.get('version')!s}",
        "tools": [{"name": tool["name"], "inputSchema": tool.get("inputSchema")} for tool in listed],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--install", action="store_true", help="npm/pip install the servers under /tmp first")
    parser.add_argument("--npm-dir", type=Path, default=Path("/tmp/npm-schemas"))
    parser.add_argument("--everything-dir", type=Path, default=Path("/tmp/npmtest"))
    parser.add_argument("--venv", type=Path, default=Path("/tmp/pyschemas-venv"))
    parser.add_argument("--only", action="append", help="collect only this file stem (repeatable)")
    args = parser.parse_args(argv)
    if args.install:
        install(args.npm_dir, args.venv, args.everything_dir)
    OUT_DIR.mkdir(parents=True, exist_ok=True)
    failures = 0
    with tempfile.TemporaryDirectory(prefix="collect-schemas-") as tmp:
        scratch = Path(tmp)
        for source in sources(args.npm_dir, args.venv, args.everything_dir, scratch):
            if args.only and source.stem not in args.only:
                continue
            try:
                corpus = collect(source, scratch)
            except (RuntimeError, subprocess.TimeoutExpired, ValueError, KeyError) as exc:
                failures += 1
                print(f"{source.stem}: FAILED {exc}", file=sys.stderr)
                continue
            path = OUT_DIR / f"{source.stem}.json"
            path.write_text(json.dumps(corpus, indent=1, ensure_ascii=False) + "\n")
            print(
                f"{source.stem}: {len(corpus['tools'])} tools, {path.stat().st_size} bytes -> {path.relative_to(REPO)}"
            )
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
