"""The conformance suite's authorization extension scenarios as mcp-inspector command lines.

``EXTENSION_SCENARIOS`` maps a scenario name to a function ``(client, context)`` that runs the
inspector through ``client.run(*words)`` (the adapter ``tests/conformance/client`` imports this
dict; ``client.run`` adds ``--url``, ``--timeout`` and ``--protocol-version``). ``context`` is
the scenario's ``MCP_CONFORMANCE_CONTEXT`` (the suite's ``context.ts``): its credentials become
documented flags only, and what is a file flag (a private key, an assertion, an ID token) is
written to a temporary file readable by the user alone (0600) and removed afterwards.

- ``auth/client-credentials-jwt``: ``--oauth-grant client_credentials --client-id ID
  --client-key FILE`` (private_key_jwt; ``signing_algorithm`` is the key's own, ES256).
- ``auth/client-credentials-basic``: ``--client-id ID --client-secret SECRET``
  (client_secret_basic, what the server's metadata offers).
- ``auth/enterprise-managed-authorization``: ``--oauth-grant enterprise --id-token FILE
  --idp-issuer URL --idp-token-endpoint URL --idp-client-id ID`` and the MCP client's
  ``--client-id``/``--client-secret`` at the authorization server; lists the tools and calls
  ``test-tool`` as the reference client does.
- ``auth/wif-jwt-bearer``: ``--oauth-grant jwt_bearer --client-id ID --assertion FILE`` with the
  context's ``valid_jwt`` (the reference client sends that one; the wrong-audience and expired
  JWTs are for negative runs of broken clients).
- ``auth/dpop``, ``auth/dpop-nonce``: the authorization code flow (``--oauth-open fetch``) with
  ``--dpop``; the nonces are the servers' to ask for.

Every run has ``--auth-store none``: nothing is kept between runs or written to the user's state.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from typing import Any, Protocol


class Client(Protocol):
    failures: list[str]

    def run(self, *words: str, expect: tuple[int, ...] = (0,)) -> Any: ...


COMMON = ("--auth-store", "none")


@contextmanager
def secret_files(**contents: str | None) -> Iterator[dict[str, str]]:
    """Each non-empty value in a temporary 0600 file: name -> path; all removed at the end."""
    paths: dict[str, str] = {}
    try:
        for name, text in contents.items():
            if not text:
                continue
            handle, path = tempfile.mkstemp(prefix=f"mcp-inspector-conformance-{name}-", suffix=".txt")
            os.fchmod(handle, 0o600)
            with os.fdopen(handle, "w", encoding="utf-8") as stream:
                stream.write(text)
            paths[name] = path
        yield paths
    finally:
        for path in paths.values():
            with suppress(OSError):
                os.unlink(path)


def _need(client: Client, context: dict, *names: str) -> bool:
    missing = [name for name in names if not isinstance(context.get(name), str) or not context[name]]
    if missing:
        client.failures.append(f"MCP_CONFORMANCE_CONTEXT lacks {', '.join(missing)}")
    return not missing


def scenario_client_credentials_jwt(client: Client, context: dict) -> None:
    if not _need(client, context, "client_id", "private_key_pem"):
        return
    with secret_files(key=context["private_key_pem"]) as files:
        client.run(
            "tools",
            *COMMON,
            "--oauth-grant",
            "client_credentials",
            "--client-id",
            context["client_id"],
            "--client-key",
            files["key"],
        )


def scenario_client_credentials_basic(client: Client, context: dict) -> None:
    if not _need(client, context, "client_id", "client_secret"):
        return
    client.run(
        "tools",
        *COMMON,
        "--oauth-grant",
        "client_credentials",
        "--client-id",
        context["client_id"],
        "--client-secret",
        context["client_secret"],
    )


def scenario_enterprise(client: Client, context: dict) -> None:
    if not _need(
        client,
        context,
        "client_id",
        "client_secret",
        "idp_client_id",
        "idp_id_token",
        "idp_issuer",
        "idp_token_endpoint",
    ):
        return
    with secret_files(id_token=context["idp_id_token"]) as files:
        flags = (
            *COMMON,
            "--oauth-grant",
            "enterprise",
            "--client-id",
            context["client_id"],
            "--client-secret",
            context["client_secret"],
            "--idp-issuer",
            context["idp_issuer"],
            "--idp-token-endpoint",
            context["idp_token_endpoint"],
            "--idp-client-id",
            context["idp_client_id"],
            "--id-token",
            files["id_token"],
        )
        client.run("tools", *flags)
        client.run("call", "test-tool", *flags)


def scenario_wif(client: Client, context: dict) -> None:
    if not _need(client, context, "client_id", "valid_jwt"):
        return
    with secret_files(assertion=context["valid_jwt"]) as files:
        client.run(
            "tools",
            *COMMON,
            "--oauth-grant",
            "jwt_bearer",
            "--client-id",
            context["client_id"],
            "--assertion",
            files["assertion"],
        )


def scenario_dpop(client: Client, context: dict) -> None:
    client.run("tools", *COMMON, "--oauth-open", "fetch", "--dpop")


EXTENSION_SCENARIOS: dict[str, Callable[[Client, dict], None]] = {
    "auth/client-credentials-jwt": scenario_client_credentials_jwt,
    "auth/client-credentials-basic": scenario_client_credentials_basic,
    "auth/enterprise-managed-authorization": scenario_enterprise,
    "auth/dpop": scenario_dpop,
    "auth/dpop-nonce": scenario_dpop,
    "auth/wif-jwt-bearer": scenario_wif,
}
