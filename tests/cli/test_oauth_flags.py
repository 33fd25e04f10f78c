"""The OAuth flags of the CLI (cli/parsing.py, cli/target.py, core/auth/options.py) and a config
entry's ``auth`` object: documented in --help, bad values and combinations are usage errors said
before connecting, the client secret from $MCP_INSPECTOR_CLIENT_SECRET, --no-auth and
"auth": false, --auth-store none, print mode without a terminal, and the ``auth`` subcommand's
grammar. Real CLI runs (python -m mcp_inspector) against tests/servers/oauth_server.py."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "auth"))
from auth_helpers import ServerStartError, cli, isolated_env, start_oauth_server  # noqa: E402 - after the sys.path/environment setup above

FLAGS = (
    "--client-id",
    "--client-secret",
    "--client-metadata-url",
    "--client-key",
    "--client-auth-method",
    "--scope",
    "--oauth-open",
    "--oauth-grant",
    "--assertion",
    "--idp-issuer",
    "--idp-token-endpoint",
    "--idp-client-id",
    "--idp-client-secret",
    "--id-token",
    "--dpop",
    "--no-dpop",
    "--auth-store",
    "--no-auth",
    "--oauth-timeout",
    "--redirect-port",
    "MCP_INSPECTOR_CLIENT_SECRET",
)
SECRET = "pre-registered-secret-42"


def cli_without_terminal(env: dict[str, str], *args: str) -> subprocess.CompletedProcess:
    """The CLI in a new session: no controlling terminal, so /dev/tty cannot be opened (as in CI,
    whoever runs the tests)."""
    result = subprocess.run(
        [sys.executable, "-m", "mcp_inspector", *args],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
        stdin=subprocess.DEVNULL,
        start_new_session=True,
    )
    return result


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    return isolated_env(tmp_path)


@pytest.fixture
def server():
    try:
        running = start_oauth_server("--client", f"cli-client:{SECRET}")
    except ServerStartError as exc:
        pytest.fail(f"oauth fixture server did not start: {exc}", pytrace=False)
    yield running
    running.stop()


def test_help_documents_every_oauth_flag_and_the_auth_command(env):
    result = cli(env, "--help")
    assert result.returncode == 0
    for flag in FLAGS:
        assert flag in result.stdout, flag
    assert "auth status [URL]" in result.stdout and "auth logout URL|--all" in result.stdout


@pytest.mark.parametrize(
    "args,words",
    [
        (["--oauth-open", "telepathy"], "--oauth-open"),
        (["--oauth-grant", "password"], "--oauth-grant"),
        (["--client-auth-method", "magic"], "--client-auth-method"),
        (["--auth-store", "cloud"], "--auth-store"),
        (["--client-secret", "s"], "--client-secret needs --client-id"),
        (["--oauth-grant", "jwt_bearer"], "needs --assertion"),
        (["--oauth-grant", "enterprise", "--client-id", "c"], "needs --id-token"),
        (["--oauth-grant", "client_credentials"], "needs --client-id"),
        (["--client-auth-method", "private_key_jwt", "--client-id", "c"], "needs --client-key"),
        (["--client-key", "/nonexistent/key.pem", "--client-id", "c"], "--client-key /nonexistent/key.pem"),
        (["--client-metadata-url", "ftp://x/y"], "not an http(s) URL"),
        (["--no-auth", "--client-id", "c"], "--no-auth and --client-id"),
        (["--oauth-timeout", "0"], "--oauth-timeout"),
        (["--redirect-port", "70000"], "--redirect-port"),
    ],
)
def test_bad_oauth_options_are_usage_errors_before_connecting(env, args, words):
    result = cli(env, "tools", "--url", "http://127.0.0.1:9/mcp", *args)
    assert result.returncode == 64, result.stderr
    assert words in result.stderr and "Traceback" not in result.stderr


def test_a_key_file_that_is_not_pem_and_oauth_flags_for_a_command_server(env, tmp_path):
    key = tmp_path / "key.txt"
    key.write_text("not a key")
    result = cli(env, "tools", "--url", "http://127.0.0.1:9/mcp", "--client-id", "c", "--client-key", str(key))
    assert result.returncode == 64 and "not a PEM private key" in result.stderr
    result = cli(env, "tools", "--client-id", "c", "--", sys.executable, "-c", "pass")
    assert result.returncode == 64 and "--client-id" in result.stderr and "only for a remote server" in result.stderr


def test_pre_registered_client_with_the_secret_from_the_environment(env, server):
    result = cli(
        {**env, "MCP_INSPECTOR_CLIENT_SECRET": SECRET},
        "call",
        "whoami",
        "--url",
        server.url,
        "--oauth-open",
        "fetch",
        "--client-id",
        "cli-client",
        "--scope",
        "mcp",
    )
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout[result.stdout.index("{") :])["client_id"] == "cli-client"
    stats = server.stats()
    assert stats["register"] == 0 and stats["token_requests"][0]["client_auth"] == "client_secret_basic"
    assert SECRET not in result.stdout + result.stderr


def test_a_config_entrys_auth_object(env, server, tmp_path):
    config = tmp_path / "mcp.json"
    config.write_text(
        json.dumps(
            {
                "mcpServers": {
                    "protected": {
                        "url": server.url,
                        "auth": {
                            "clientId": "cli-client",
                            "client_secret": "${THE_SECRET}",
                            "oauth-open": "fetch",
                            "scope": ["mcp"],
                            "auth_store": "none",
                        },
                    }
                }
            }
        )
    )
    result = cli({**env, "THE_SECRET": SECRET}, "call", "whoami", "--config", str(config), "--server", "protected")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout[result.stdout.index("{") :])["client_id"] == "cli-client"
    # the command line's options replace the entry's fields
    result = cli_without_terminal(
        {**env, "THE_SECRET": SECRET},
        "tools",
        "--config",
        str(config),
        "--server",
        "protected",
        "--oauth-open",
        "print",
    )
    assert result.returncode == 3 and "use --oauth-open fetch or browser" in result.stderr


def test_a_config_entrys_bad_auth_object_is_a_usage_error(env, tmp_path):
    config = tmp_path / "mcp.json"
    config.write_text(
        json.dumps(
            {
                "mcpServers": {
                    "p": {"url": "http://127.0.0.1:9/mcp", "auth": {"oauth_open": "x"}},
                    "q": {"url": "http://127.0.0.1:9/mcp", "auth": {"colour": "red"}},
                }
            }
        )
    )
    result = cli(env, "tools", "--config", str(config), "--server", "p")
    assert result.returncode == 64 and "auth.oauth_open" in result.stderr
    result = cli(env, "tools", "--config", str(config), "--server", "q")
    assert result.returncode == 64 and "unknown authorization option" in result.stderr


def test_no_auth_and_auth_false_never_authorize(env, server, tmp_path):
    result = cli(env, "tools", "--url", server.url, "--no-auth")
    assert result.returncode == 3 and "wants authorization" in result.stderr, result.stderr
    config = tmp_path / "mcp.json"
    config.write_text(json.dumps({"mcpServers": {"p": {"url": server.url, "auth": False}}}))
    result = cli(env, "tools", "--config", str(config), "--server", "p")
    assert result.returncode == 3 and "wants authorization" in result.stderr
    assert server.stats()["authorize"] == 0


def test_auth_store_none_writes_nothing(env, server, tmp_path):
    result = cli(env, "tools", "--url", server.url, "--oauth-open", "fetch", "--auth-store", "none")
    assert result.returncode == 0, result.stderr
    assert not (tmp_path / "state" / "mcp-inspector" / "auth").exists() or not any(
        (tmp_path / "state" / "mcp-inspector" / "auth").iterdir()
    )
    again = cli(env, "tools", "--url", server.url, "--oauth-open", "fetch", "--auth-store", "none")
    assert again.returncode == 0 and server.stats()["authorize"] == 2


def test_print_mode_without_a_terminal_says_what_to_use(env, server):
    result = cli_without_terminal(env, "tools", "--url", server.url, "--oauth-open", "print")
    assert result.returncode == 3
    assert "/authorize?" in result.stderr  # the URL was said
    assert "no terminal to paste the redirect URL into: use --oauth-open fetch or browser" in result.stderr


@pytest.mark.parametrize(
    "args,code,words",
    [
        (["auth", "logout"], 64, "needs a server URL or --all"),
        (["auth", "logout", "http://127.0.0.1:9/mcp", "--all"], 64, "needs a server URL or --all"),
        (["auth", "status", "--all"], 64, "--all goes with auth logout"),
        (["auth", "whoami"], 64, "invalid choice"),
        (["auth", "status"], 0, ""),
        (["auth", "logout", "--all"], 0, ""),
    ],
)
def test_auth_subcommand_grammar(env, args, code, words):
    result = cli(env, *args)
    assert result.returncode == code, result.stderr
    assert words in result.stderr and "Traceback" not in result.stderr
