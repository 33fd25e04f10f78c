"""Helpers for the OAuth tests: start tests/servers/oauth_server.py, read its stats, run the CLI.

``start_oauth_server(*args)`` -> ``OAuthServer`` (``.url`` the MCP endpoint, ``.base``,
``.issuer``, ``.stats()``, ``.secrets()``: every credential it issued or saw, ``.stop()``).
``cli(env, *args, input=...)`` runs ``python -m mcp_inspector`` with ``env`` (the XDG dirs of
the test: never the real home) and returns text output; ``oauth_cli(env, server, *args,
mode="fetch")`` runs it on ``server`` with ``--oauth-open mode``. ``follow_authorization(url)``
does what a person's browser does with an authorization URL on a server that approves at once:
it returns the redirect's ``Location``. ``cli_pasting_redirect`` runs a ``print`` flow with the
redirect typed on the CLI's terminal (a pty); ``install_fake_browser`` makes a ``$BROWSER``.
Assertions: ``assert_ok``, ``assert_no_traceback``, ``assert_no_secret(server, *texts)``;
``whoami_of(result)`` is the ``whoami`` tool's answer; ``let_tokens_expire()`` waits out a
``--expires-in 1`` token.
"""

from __future__ import annotations

import fcntl
import json
import os
import pty
import re
import subprocess
import sys
import termios
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

TESTS_DIR = Path(__file__).resolve().parents[1]
if str(TESTS_DIR) not in sys.path:
    sys.path.insert(0, str(TESTS_DIR))
from http_fixtures import RunningServer, ServerStartError, _launch  # noqa: E402 - after the sys.path/environment setup above

OAUTH_SERVER = TESTS_DIR / "servers" / "oauth_server.py"
PYTHON = sys.executable


class OAuthServer(RunningServer):
    """A running oauth_server.py: ``url`` is its MCP endpoint."""

    issuer: str = ""

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def stats(self) -> dict[str, Any]:
        with urllib.request.urlopen(self.base + "/_stats", timeout=10) as response:
            return json.loads(response.read())

    def secrets(self) -> list[str]:
        """Every access token, refresh token, code, client secret and code_verifier of the run."""
        stats = self.stats()
        groups = [stats["secrets"], stats.get("as2", {}).get("secrets", {})]  # as2: after /_migrate
        return [s for group in groups for values in group.values() for s in values]


def oauth_server_command(*args: str) -> list[str]:
    return [PYTHON, str(OAUTH_SERVER), "--exit-on-eof", *args]


def start_oauth_server(*args: str) -> OAuthServer:
    """Start oauth_server.py with ``args`` (its knobs); raises ServerStartError with its output."""

    def find_port(log_path: Path) -> int | None:
        match = re.search(rb"^PORT (\d+)$", log_path.read_bytes(), re.MULTILINE)
        return int(match.group(1)) if match else None

    env = dict(os.environ, PYTHONUNBUFFERED="1")
    running = _launch(oauth_server_command(*args), env, find_port, "/mcp", "oauth")
    server = OAuthServer(running.process, running.log_path, running.url, running.port)
    log = server.log()
    match = re.search(r"^ISSUER (\S+)$", log, re.MULTILINE)
    server.issuer = match.group(1) if match else server.base
    match = re.search(r"^URL (\S+)$", log, re.MULTILINE)
    if match:  # /mcp, or /sse with --mode sse
        server.url = match.group(1)
    return server


def isolated_env(root: Path, **extra: str) -> dict[str, str]:
    """The environment of a CLI run: state and config under ``root``, no display, no browser."""
    env = dict(os.environ)
    for name in ("DISPLAY", "WAYLAND_DISPLAY", "BROWSER", "MCP_INSPECTOR_NO_EARLY_START"):
        env.pop(name, None)
    env.update(
        XDG_STATE_HOME=str(root / "state"),
        XDG_CONFIG_HOME=str(root / "config"),
        XDG_DATA_HOME=str(root / "data"),
        XDG_CACHE_HOME=str(root / "cache"),
        HOME=str(root / "home"),
        PYTHONUNBUFFERED="1",
        NO_COLOR="1",
    )
    env.update(extra)
    return env


def cli(env: dict[str, str], *args: str, input: str | None = None, timeout: float = 60) -> subprocess.CompletedProcess:
    """Run the CLI; text output; never hangs (subprocess timeout)."""
    result = subprocess.run(
        [PYTHON, "-m", "mcp_inspector", *map(str, args)],
        input=(input or "").encode(),
        capture_output=True,
        timeout=timeout,
        env=env,
    )
    return subprocess.CompletedProcess(
        result.args,
        result.returncode,
        result.stdout.decode("utf-8", "replace"),
        result.stderr.decode("utf-8", "replace"),
    )


AUTHORIZE_URL = re.compile(r"http://127\.0\.0\.1:\d+/authorize\?\S+")


def _controlling_terminal() -> None:
    """In the child (after setsid): its stdin, the pty's slave, becomes its controlling terminal,
    so /dev/tty is the pty (never the terminal of the person running the tests)."""
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)


def cli_pasting_redirect(
    env: dict[str, str],
    *args: str,
    timeout: float = 60,
    paste: Callable[[str], str] | None = lambda location: location,
) -> tuple[subprocess.CompletedProcess, str]:
    """Run the CLI in ``--oauth-open print`` mode as a person would: wait for the authorization URL
    it prints (stdout or stderr), open it (``follow_authorization``), and type the redirect's
    address (or ``paste(address)``: a person's mistake) on its terminal (a pty: the CLI reads the
    pasted URL from /dev/tty). ``paste=None``: a person who never pastes. Returns the run and the URL it printed."""
    master, slave = pty.openpty()
    try:
        process = subprocess.Popen(
            [PYTHON, "-m", "mcp_inspector", *map(str, args)],
            stdin=slave,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
            start_new_session=True,
            preexec_fn=_controlling_terminal,
        )
    finally:
        os.close(slave)
    out, err = bytearray(), bytearray()
    found = threading.Event()

    def text() -> str:
        return bytes(out).decode("utf-8", "replace") + bytes(err).decode("utf-8", "replace")

    def pump(stream: Any, into: bytearray) -> None:
        for chunk in iter(lambda: stream.read1(4096), b""):
            into.extend(chunk)
            if AUTHORIZE_URL.search(text()):
                found.set()
        found.set()  # EOF: nothing more will come

    def drain_terminal() -> None:  # the pty echoes what is typed: read it so it never fills
        while True:
            try:
                if not os.read(master, 4096):
                    return
            except OSError:
                return

    threads = [
        threading.Thread(target=pump, args=(process.stdout, out), daemon=True),
        threading.Thread(target=pump, args=(process.stderr, err), daemon=True),
        threading.Thread(target=drain_terminal, daemon=True),
    ]
    for thread in threads:
        thread.start()
    url = ""
    try:
        found.wait(timeout)
        match = AUTHORIZE_URL.search(text())
        if match:
            url = match.group(0)
            if paste is not None:
                os.write(master, paste(follow_authorization(url)).encode() + b"\n")
        process.wait(timeout)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(5)
        for thread in threads[:2]:
            thread.join(5)
        os.close(master)
    return (
        subprocess.CompletedProcess(
            process.args,
            process.returncode,
            bytes(out).decode("utf-8", "replace"),
            bytes(err).decode("utf-8", "replace"),
        ),
        url,
    )


def assert_no_traceback(result: subprocess.CompletedProcess) -> None:
    for stream in (result.stdout, result.stderr):
        assert "Traceback (most recent call last)" not in stream, stream


def follow_authorization(url: str) -> str:
    """GET an authorization URL without following its redirect; the ``Location`` it answers."""

    class NoRedirect(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args: Any, **kwargs: Any) -> None:
            return None

    opener = urllib.request.build_opener(NoRedirect)
    try:
        opener.open(url, timeout=10)
    except urllib.error.HTTPError as exc:
        if exc.code in (301, 302, 303, 307, 308):
            return exc.headers["Location"]
        raise AssertionError(f"the authorization URL answered {exc.code}: {exc.read()[:300]!r}") from None
    raise AssertionError("the authorization URL did not redirect")


def install_fake_browser(directory: Path) -> tuple[str, Path]:
    """An executable copy of fake_browser.py (``$BROWSER`` takes a program, no arguments) and
    the log it appends to: ``(value for $BROWSER, log path)``."""
    directory.mkdir(parents=True, exist_ok=True)
    script = directory / "fake-browser"
    source = (Path(__file__).resolve().parent / "fake_browser.py").read_text(encoding="utf-8")
    script.write_text(f"#!{PYTHON}\n{source}", encoding="utf-8")
    script.chmod(0o755)
    return str(script), directory / "browser.jsonl"


def oauth_cli(
    env: dict[str, str], server: OAuthServer, *args: str, mode: str = "fetch", **kwargs: Any
) -> subprocess.CompletedProcess:
    """``cli`` on ``server``'s MCP endpoint with ``--oauth-open mode``."""
    return cli(env, *args, "--url", server.url, "--oauth-open", mode, **kwargs)


def let_tokens_expire() -> None:
    """With ``--expires-in 1``: wait until the last token is expired at the server too, so what the
    next run does does not depend on how fast it starts (a wait, not a timed assertion)."""
    time.sleep(1.5)


def assert_ok(result: subprocess.CompletedProcess) -> None:
    """Exit 0 and no traceback (else the run's output in the failure)."""
    assert result.returncode == 0, f"exit {result.returncode}\nstdout: {result.stdout}\nstderr: {result.stderr}"
    assert_no_traceback(result)


def whoami_of(result: subprocess.CompletedProcess) -> dict:
    """The JSON object the ``whoami`` tool answered, from the CLI's output."""
    start = result.stdout.index("{")
    return json.loads(result.stdout[start : result.stdout.rindex("}") + 1])


def assert_no_secret(server: OAuthServer, *texts: str) -> None:
    """None of the credentials ``server`` issued or saw is in any of ``texts``."""
    secrets = server.secrets()
    assert secrets, "the server issued nothing: the test proves nothing"
    for text in texts:
        for secret in secrets:
            assert secret not in text, f"a secret ({secret[:6]}...) is shown"


def files_text(root: Path) -> str:
    """Every file under ``root``, as text (to look for secrets in what the CLI wrote)."""
    parts = []
    for path in sorted(root.rglob("*")):
        if path.is_file():
            parts.append(path.read_bytes().decode("utf-8", "replace"))
    return "\n".join(parts)


__all__ = [
    "OAuthServer",
    "ServerStartError",
    "assert_no_secret",
    "assert_no_traceback",
    "assert_ok",
    "cli",
    "cli_pasting_redirect",
    "files_text",
    "follow_authorization",
    "install_fake_browser",
    "isolated_env",
    "let_tokens_expire",
    "oauth_cli",
    "oauth_server_command",
    "start_oauth_server",
    "whoami_of",
]
