"""Which server to talk to, from the command line: ``-- CMD``, ``--config``, ``--demo``."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from .exit_codes import UsageError

if TYPE_CHECKING:
    from typing import Sequence

    from ..core.config.servers import ServerSpec

HTTP_NOT_SUPPORTED = "HTTP transports are not supported yet (only stdio servers: give a command after --)"


def env_pairs(pairs: Sequence[str]) -> dict[str, str]:
    """``-e KEY=VALUE`` options into a dict (a malformed pair is a usage error)."""
    from ..core.config.servers import ConfigError, parse_env_pairs

    try:
        return parse_env_pairs(list(pairs))
    except ConfigError as exc:
        raise UsageError(str(exc)) from None


def server_directory(cwd: str | None) -> str | None:
    """``--cwd``, absolute; a directory that does not exist is a usage error."""
    if cwd is None:
        return None
    path = os.path.abspath(os.path.expanduser(cwd))
    check_directory(path)
    return path


def check_directory(path: str) -> None:
    """The server's working directory must exist and be enterable (the error names it)."""
    if not os.path.isdir(path):
        if os.path.exists(path):
            raise UsageError(f"working directory is not a directory: {path}")
        raise UsageError(f"working directory does not exist: {path}")
    if not os.access(path, os.X_OK):
        raise UsageError(f"permission denied: working directory {path}")


def build_spec(
    server_command: Sequence[str],
    *,
    config: str | None = None,
    server: str | None = None,
    url: str | None = None,
    demo: bool = False,
    env_options: Sequence[str] = (),
    cwd: str | None = None,
    default_demo: bool = True,
) -> ServerSpec | None:
    """The server spec the options describe; the demo server when none is given.

    Returns None only when ``default_demo`` is False and nothing was given.
    """
    chosen = [name for name, given in (("a command after --", bool(server_command)), ("--config", config is not None),
                                       ("--url", url is not None), ("--demo", demo)) if given]
    if len(chosen) > 1:
        raise UsageError(f"choose one server: {' and '.join(chosen)} were both given")
    if server is not None and config is None:
        raise UsageError("--server needs --config FILE")
    if url is not None:
        raise UsageError(HTTP_NOT_SUPPORTED)
    from ..core.config.servers import ConfigError, ServerSpec, demo_spec, server_from_config

    env = env_pairs(env_options)
    try:
        if config is not None:
            spec = server_from_config(config, server)
        elif server_command:
            spec = ServerSpec(os.path.basename(server_command[0]) or server_command[0], list(server_command), source="command line")
        elif demo or default_demo:
            spec = demo_spec()
        else:
            if env or cwd:
                raise UsageError("-e and --cwd need a server")
            return None
    except ConfigError as exc:
        raise UsageError(str(exc)) from None
    if spec.url:
        raise UsageError(f"server {spec.name!r} is at {spec.url}: {HTTP_NOT_SUPPORTED}")
    if env or cwd:
        spec = spec.with_overrides(env=env, cwd=server_directory(cwd))
    if spec.cwd is not None:
        check_directory(spec.cwd)
    return spec
