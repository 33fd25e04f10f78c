"""The OAuth options of every command (core/auth/options.py reads them; parsing_options.py
adds them with the others)."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

from .parsing_types import port_number, positive_seconds

OPEN_CHOICES = ("browser", "print", "fetch")
GRANT_CHOICES = ("authorization_code", "client_credentials", "jwt_bearer", "enterprise")
STORE_CHOICES = ("file", "keyring", "none")


def add_auth_options(parser: argparse.ArgumentParser, default: Callable[[Any], Any]) -> None:
    """The OAuth options (core/auth/options.py reads them; a config entry's "auth" object has the same names)."""
    auth = parser.add_argument_group(
        "authorization (OAuth 2.1, for a remote server that answers 401; see docs/oauth.md)"
    )
    auth.add_argument(
        "--client-id",
        metavar="ID",
        default=default(None),
        help="a pre-registered client id (else a Client ID Metadata Document or dynamic registration)",
    )
    auth.add_argument(
        "--client-secret",
        metavar="SECRET",
        default=default(None),
        help="its secret; also read from $MCP_INSPECTOR_CLIENT_SECRET, which keeps it off the command line",
    )
    auth.add_argument(
        "--client-metadata-url",
        metavar="URL",
        default=default(None),
        help="an https URL of a Client ID Metadata Document to use as the client id, when the "
        "authorization server supports them",
    )
    auth.add_argument(
        "--client-key",
        metavar="FILE",
        default=default(None),
        help="a PEM private key: private_key_jwt client authentication (RS256/ES256...)",
    )
    auth.add_argument(
        "--client-auth-method",
        metavar="METHOD",
        default=default(None),
        help="force the token endpoint authentication: client_secret_basic, client_secret_post, "
        "none or private_key_jwt (default: the best the server supports for the client)",
    )
    auth.add_argument(
        "--scope",
        metavar="SCOPE",
        action="append",
        dest="scopes" if default(None) is None else "scopes_after",
        default=default([]),
        help="a scope to ask for (repeatable; default: the server's "
        "WWW-Authenticate scope, else its scopes_supported, else none)",
    )
    auth.add_argument(
        "--oauth-open",
        metavar="MODE",
        choices=OPEN_CHOICES,
        default=default(None),
        help="how you authorize: browser (the system browser and a loopback listener on 127.0.0.1 "
        "during the flow; the default with a display), print (print the URL, paste the final "
        "redirect URL; the default without one), fetch (the inspector requests the URL itself: "
        "for test servers that approve without a person)",
    )
    auth.add_argument(
        "--oauth-grant",
        metavar="GRANT",
        choices=GRANT_CHOICES,
        default=default(None),
        help="authorization_code (default, with PKCE), client_credentials (--client-id with "
        "--client-secret or --client-key), jwt_bearer (--assertion) or enterprise "
        "(--id-token at --idp-issuer, then a JWT bearer grant)",
    )
    auth.add_argument(
        "--assertion",
        metavar="FILE",
        default=default(None),
        help="jwt_bearer: a file holding the workload identity JWT (- for stdin)",
    )
    auth.add_argument(
        "--idp-issuer",
        metavar="URL",
        default=default(None),
        help="enterprise: the identity provider's issuer (its token endpoint is discovered)",
    )
    auth.add_argument(
        "--idp-token-endpoint",
        metavar="URL",
        default=default(None),
        help="enterprise: the identity provider's token endpoint (instead of discovering it)",
    )
    auth.add_argument(
        "--idp-client-id",
        metavar="ID",
        default=default(None),
        help="enterprise: the client id at the identity provider",
    )
    auth.add_argument(
        "--idp-client-secret",
        metavar="SECRET",
        default=default(None),
        help="enterprise: the client secret at the identity provider",
    )
    auth.add_argument(
        "--id-token",
        metavar="FILE",
        default=default(None),
        help="enterprise: a file holding the user's ID token at the identity provider (- for stdin)",
    )
    dpop = auth.add_mutually_exclusive_group()
    dpop.add_argument(
        "--dpop",
        dest="dpop",
        action="store_const",
        const=True,
        default=default(None),
        help="DPoP-bound tokens (RFC 9449; default: when the authorization server supports them)",
    )
    dpop.add_argument(
        "--no-dpop",
        dest="dpop",
        action="store_const",
        const=False,
        default=default(None),
        help="never DPoP: Bearer tokens",
    )
    auth.add_argument(
        "--auth-store",
        metavar="STORE",
        choices=STORE_CHOICES,
        default=default(None),
        help="where tokens are kept: file (default: 0600 files under $XDG_STATE_HOME/mcp-inspector/auth), "
        "keyring (the system keyring; pip install 'mcp-inspector[keyring]') or none (this run only)",
    )
    auth.add_argument(
        "--oauth-timeout",
        metavar="SECONDS",
        type=positive_seconds,
        default=default(None),
        help="how long an authorization may take, a person in a browser included (default 300); "
        "request timeouts wait while it runs",
    )
    auth.add_argument(
        "--redirect-port",
        metavar="PORT",
        type=port_number,
        default=default(None),
        help="the loopback port of the redirect URI http://127.0.0.1:PORT/callback (default: an "
        "ephemeral port for browser, 33418 for print and fetch), for a client registered with one",
    )
    auth.add_argument(
        "--no-auth", action="store_true", default=default(False), help="never authorize: a 401 is an error"
    )
