"""Which paths to watch: the ones given (``--watch PATH``), or the server's own directory,
inferred from its command line.

``python[3] script.py``, ``uv run script.py``, ``node file.js``, ``deno run x.ts``, ``bun x.ts``
(and ``tsx``, ``fastmcp run`` / ``mcp run``): the script's directory. ``python -m pkg.mod`` (or
``uv run -m``): the package's directory, found from the server's working directory (or its
``src/``). Anything else (``npx``, a binary) cannot be inferred: a WatchError asks for
``--watch PATH``. Relative paths in the command are the server's (its ``cwd``); a PATH given
by the user is taken from the inspector's own working directory, as the shell would.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any


class WatchError(Exception):
    """Watching cannot start: the reason, in one line."""


ASK = "give the directory to watch with --watch PATH"
_PYTHON = re.compile(r"^(python|pypy)(\d+(\.\d+)?)?(\.exe)?$")
# interpreter options that take the next word as their value
_PYTHON_VALUE = {"-W", "-X", "-Q"}
_NODE_VALUE = {
    "-r",
    "--require",
    "--import",
    "--loader",
    "--experimental-loader",
    "--env-file",
    "--conditions",
    "-C",
    "--inspect-port",
    "--title",
    "--input-type",
    "--preload",
    "--config",
    "-c",
    "--import-map",
    "--lock",
    "--cwd",
    "--tsconfig",
}
_NODE_CODE = {"-e", "--eval", "-p", "--print"}
_UV_VALUE = {
    "--with",
    "-w",
    "--with-editable",
    "--with-requirements",
    "--python",
    "-p",
    "--project",
    "--directory",
    "--package",
    "--extra",
    "--group",
    "--only-group",
    "--no-group",
    "--env-file",
    "--index",
    "--default-index",
    "--index-url",
    "-i",
    "--extra-index-url",
    "--find-links",
    "-f",
    "--config-file",
    "--cache-dir",
    "--python-platform",
    "--prerelease",
    "--resolution",
    "--exclude-newer",
}
_SCRIPT_SUFFIXES = (".py", ".pyw", ".js", ".mjs", ".cjs", ".ts", ".mts", ".cts", ".tsx", ".jsx")


def resolve_watch_paths(given: Sequence[str], spec: Any, base: str | None = None) -> list[str]:
    """The absolute paths to watch for ``spec`` (a ServerSpec): each given PATH (from ``base``, the
    inspector's working directory), and for an empty one the server's inferred directory.
    Raises WatchError for a remote server, a PATH that does not exist or a command that names
    no script."""
    if spec is None:
        raise WatchError("--watch needs a server to restart")
    if getattr(spec, "url", None):
        raise WatchError("--watch restarts a local stdio server only; a remote server (--url) is not restarted by us")
    base = base or os.getcwd()
    found: list[str] = []
    for text in given:
        if text:
            path = os.path.abspath(os.path.join(base, os.path.expanduser(text)))
            if not os.path.exists(path):
                raise WatchError(f"--watch {text}: no such file or directory")
            paths = [path]
        else:
            paths = infer_watch_paths(list(spec.command), spec.cwd or base)
        found.extend(path for path in paths if path not in found)
    return found


def infer_watch_paths(command: list[str], cwd: str) -> list[str]:
    """The directory of the server's script or package; WatchError when the command names neither."""
    if not command:
        raise WatchError(f"the server has no command to infer a directory from; {ASK}")
    return [_infer(command, cwd, command)]


def _infer(words: list[str], cwd: str, whole: list[str]) -> str:
    program = os.path.basename(words[0]).lower()
    rest = words[1:]
    if _PYTHON.match(program):
        return _python(rest, cwd, whole, words[0])
    if program == "uv":
        return _uv(rest, cwd, whole)
    if program in ("node", "nodejs", "tsx", "ts-node", "bun", "deno", "fastmcp", "mcp"):
        if program in ("deno", "fastmcp", "mcp", "bun") and rest and rest[0] in ("run", "dev"):
            rest = rest[1:]
        elif program == "deno":
            raise _cannot(whole, "deno without run")
        script = _first_argument(rest, _NODE_VALUE, _NODE_CODE, whole)
        return _script_directory(script.split(":", 1)[0] if program in ("fastmcp", "mcp") else script, cwd)
    if program.endswith(_SCRIPT_SUFFIXES):  # ./server.py run directly (a shebang)
        return _script_directory(words[0], cwd)
    raise _cannot(whole)


def _cannot(command: list[str], why: str = "") -> WatchError:
    import subprocess

    shown = subprocess.list2cmdline(command[:4]) + (" …" if len(command) > 4 else "")
    what = f" ({why})" if why else ""
    return WatchError(f"cannot tell which files to watch from the command {shown!r}{what}; {ASK}")


def _scan(args: list[str], with_value: set[str], option=None) -> tuple[int, str | None]:
    """Walk the options before the first positional word: (its index, or len(args); and what
    ``option(word, next word)`` returned, when it returned something, which ends the walk)."""
    index = 0
    while index < len(args):
        word = args[index]
        if word == "--":
            return index + 1, None
        if not word.startswith("-") or word == "-":
            return index, None
        found = option(word, args[index + 1] if index + 1 < len(args) else "") if option is not None else None
        if found is not None:
            return index, found
        index += 2 if word in with_value else 1
    return index, None


def _python(args: list[str], cwd: str, whole: list[str], interpreter: str = "") -> str:
    def option(word: str, following: str) -> str | None:
        if word == "-m" or (word.startswith("-m") and not word.startswith("--")):
            if not (word[2:] or following):
                raise _cannot(whole, "-m without a module")
            return word[2:] or following
        if word.startswith("-c") and not word.startswith("--"):
            raise _cannot(whole, "code given with -c")
        return None

    index, module = _scan(args, _PYTHON_VALUE, option)
    if module is not None:
        return _module_directory(module, cwd, interpreter)
    if index >= len(args) or args[index] == "-":
        raise _cannot(whole, "no script")
    return _script_directory(args[index], cwd)


def _uv(args: list[str], cwd: str, whole: list[str]) -> str:
    if not args or args[0] not in ("run", "tool"):
        raise _cannot(whole)
    if args[0] == "tool":  # uv tool run x: an installed tool, no source here
        raise _cannot(whole, "an installed tool")
    directory: list[str] = []

    def option(word: str, following: str) -> str | None:
        if word in ("-m", "--module"):
            if not following:
                raise _cannot(whole, "-m without a module")
            return following
        if word == "--directory" and following:
            directory.append(following)
        return None

    rest = args[1:]
    index, module = _scan(rest, _UV_VALUE, option)
    if directory:
        cwd = os.path.join(cwd, os.path.expanduser(directory[-1]))
    if module is not None:
        return _module_directory(module, cwd)
    if index >= len(rest):
        raise _cannot(whole, "no script")
    target = rest[index:]
    if target[0].lower().endswith(_SCRIPT_SUFFIXES):
        return _script_directory(target[0], cwd)
    return _infer(target, cwd, whole)  # uv run python x.py, uv run fastmcp run x.py


def _first_argument(args: list[str], with_value: set[str], code: set[str], whole: list[str]) -> str:
    def option(word: str, following: str) -> str | None:
        if word in code or any(word.startswith(name + "=") for name in code):
            raise _cannot(whole, "code given inline")
        return None

    index, _ = _scan(args, with_value, option)
    if index >= len(args):
        raise _cannot(whole, "no script")
    return args[index]


def _same_file(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def _script_directory(script: str, cwd: str) -> str:
    path = Path(cwd, os.path.expanduser(script))
    if not path.is_file():
        raise WatchError(f"cannot find the server's script {script} (looked in {cwd}); {ASK}")
    return os.path.abspath(path.parent)


def _module_directory(module: str, cwd: str, interpreter: str = "") -> str:
    top = module.split(".", 1)[0]
    for root in (Path(cwd), Path(cwd, "src")):
        if (root / top).is_dir():
            return os.path.abspath(root / top)
        if (root / f"{top}.py").is_file():
            return os.path.abspath(root)
    if interpreter and _same_file(interpreter, sys.executable):
        # the server runs on our own interpreter: its packages are ours (an editable install...)
        import importlib.util

        try:
            found = importlib.util.find_spec(top)
        except (ImportError, ValueError):
            found = None
        locations = list(found.submodule_search_locations or []) if found is not None else []
        if locations:
            return os.path.abspath(locations[0])
        if found is not None and found.origin and os.path.isfile(found.origin):
            return os.path.dirname(os.path.abspath(found.origin))
    raise WatchError(f"cannot find the module {module} in {cwd} (or its src/); {ASK}")
