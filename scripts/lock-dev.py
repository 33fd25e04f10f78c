"""Write requirements-dev.txt: every package `pip install -e '.[dev]'` needs, pinned to the
version installed in this environment (the one the suite was run with).

    .venv/bin/python scripts/lock-dev.py          # rewrite requirements-dev.txt
    .venv/bin/python scripts/lock-dev.py --check  # exit 1 if it is stale

The closure is read from the installed packages' own metadata (pyproject.toml's dependencies
and dev extras, then each one's requirements, with markers and extras), so a package that
sits in the venv but nothing asks for stays out. Like pip-compile's output, without a resolver
or network: run it after installing a new dependency and commit both files together.
"""

from __future__ import annotations

import argparse
import re
import sys
import tomllib
from importlib import metadata
from pathlib import Path

from packaging.markers import default_environment
from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parents[1]
LOCK = ROOT / "requirements-dev.txt"
HEADER = """\
# Pinned versions of mcp-inspector's dependencies and dev extras, as tested.
# Written by scripts/lock-dev.py from the venv (Linux, Python 3.11); scripts/run-tests installs from it.
"""


def canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def wanted(requirement: Requirement, extras: set[str]) -> bool:
    if requirement.marker is None:
        return True
    environment = default_environment()
    return any(requirement.marker.evaluate({**environment, "extra": extra}) for extra in extras or {""})


def closure(roots: list[Requirement]) -> dict[str, str]:
    """Canonical name -> installed version, for the roots and everything they require."""
    pins: dict[str, str] = {}
    todo = [(requirement, {""}) for requirement in roots]
    seen: set[tuple[str, frozenset[str]]] = set()
    while todo:
        requirement, parent_extras = todo.pop()
        if not wanted(requirement, parent_extras):
            continue
        name = canonical(requirement.name)
        key = (name, frozenset(requirement.extras))
        if key in seen:
            continue
        seen.add(key)
        try:
            dist = metadata.distribution(requirement.name)
        except metadata.PackageNotFoundError:
            sys.exit(f"lock-dev: {requirement.name} is required but not installed (pip install it first)")
        if dist.version not in requirement.specifier and requirement.specifier:
            sys.exit(f"lock-dev: {name} {dist.version} is installed but {requirement} is required")
        pins[name] = dist.version
        extras = {""} | set(requirement.extras)
        todo.extend((Requirement(text), extras) for text in dist.requires or [])
    return pins


def render() -> str:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    roots = [Requirement(text) for text in project["dependencies"] + project["optional-dependencies"]["dev"]]
    pins = closure(roots)
    pins.pop(canonical(project["name"]), None)
    return HEADER + "".join(f"{name}=={version}\n" for name, version in sorted(pins.items()))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if requirements-dev.txt is stale")
    args = parser.parse_args()
    text = render()
    if args.check:
        if not LOCK.exists() or LOCK.read_text() != text:
            print("requirements-dev.txt is stale: run .venv/bin/python scripts/lock-dev.py", file=sys.stderr)
            return 1
        return 0
    LOCK.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
