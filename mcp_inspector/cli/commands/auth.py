"""``mcp-inspector auth status [URL]`` and ``mcp-inspector auth logout [URL | --all]``.

They read and change the token store (``core/auth/store.py``) without connecting to any
server. ``status`` shows, per stored server, the issuer, the client and how it was
registered, the token's type, scopes and expiry, and whether a refresh token is kept:
never a token or secret value (the keyring is not even asked). ``logout`` removes a
server's entry (or every entry with ``--all``) and says what went; nothing to remove is
said too, and is not an error.

``args`` (parsed in ``parsing.py``): ``url`` (or None), ``all``, ``json``, ``auth_store``.
"""

from __future__ import annotations

import json
import sys
import time
from typing import Any

from ...core.auth.store import StoredAuth, StoreError, TokenStore
from ...core.base.masking import mask_url
from .. import exit_codes
from ..output.report import error, for_stream, warn

HOW_REGISTERED = {
    "dynamic": "dynamic client registration",
    "pre-registered": "pre-registered",
    "metadata-document": "client ID metadata document",
    "stored": "stored registration",
}


def _store(args: Any) -> TokenStore | None:
    """The store to look in: the files whatever ``--auth-store`` says (a keyring entry's file
    says it is one; the keyring is asked only to remove its secrets). None: ``none``."""
    if getattr(args, "auth_store", None) == "none":
        return None
    return TokenStore("file")


def _out(text: str) -> None:
    text = for_stream(text, sys.stdout)
    sys.stdout.write(text if text.endswith("\n") else text + "\n")


def _notes(store: TokenStore) -> None:
    for note in store.notes:
        warn(note)


def relative_expiry(expires_at: float | None, now: float | None = None) -> str:
    """``expires in 3 min``, ``expired 2 h ago``, ``no expiry given``."""
    if expires_at is None:
        return "no expiry given"
    left = expires_at - (time.time() if now is None else now)
    span = _span(abs(left))
    return f"expires in {span}" if left > 0 else f"expired {span} ago"


def _span(seconds: float) -> str:
    seconds = int(seconds)
    if seconds < 60:
        return f"{seconds} s"
    if seconds < 3600:
        return f"{seconds // 60} min"
    if seconds < 86400:
        hours, minutes = divmod(seconds // 60, 60)
        return f"{hours} h {minutes} min" if minutes else f"{hours} h"
    days, hours = divmod(seconds // 3600, 24)
    return f"{days} d {hours} h" if hours else f"{days} d"


def entry_status(entry: StoredAuth, now: float | None = None) -> dict[str, Any]:
    """What ``status --json`` says of one entry: no secret, only whether one is kept."""
    now = time.time() if now is None else now
    client, tokens = entry.client, entry.tokens
    return {
        "server_url": mask_url(entry.server_url),
        "resource": mask_url(entry.resource),
        "issuer": entry.issuer,
        "client_id": client.client_id if client else None,
        "registered_via": client.registered_via if client else None,
        "client_secret_stored": bool(client and client.client_secret is not None),
        "token_type": tokens.token_type if tokens else None,
        "scope": tokens.scope if tokens else None,
        "expires_at": tokens.expires_at if tokens else None,
        "expires_in": round(tokens.expires_at - now) if tokens and tokens.expires_at is not None else None,
        "expired": bool(tokens and tokens.expires_at is not None and tokens.expires_at <= now),
        "refresh_token": bool(tokens and tokens.refresh_token is not None),
        "dpop_bound": bool(tokens and tokens.dpop_jkt),
        "saved_at": entry.saved_at,
        "secrets_in": entry.secrets_in,
    }


def _describe(entry: StoredAuth, now: float) -> list[str]:
    status = entry_status(entry, now)
    lines = [status["server_url"]]
    if status["resource"] != status["server_url"]:
        lines.append(f"  resource       {status['resource']}")
    lines.append(f"  issuer         {status['issuer'] or '(unknown)'}")
    if entry.client is not None:
        how = HOW_REGISTERED.get(entry.client.registered_via, entry.client.registered_via)
        lines.append(f"  client         {entry.client.client_id} ({how})")
    else:
        lines.append("  client         (none stored)")
    tokens = entry.tokens
    if tokens is None:
        lines.append("  token          none")
    else:
        bound = ", DPoP-bound" if tokens.dpop_jkt and tokens.token_type.lower() != "dpop" else ""
        lines.append(f"  token          {tokens.token_type}{bound}, {relative_expiry(tokens.expires_at, now)}")
        lines.append(f"  scopes         {tokens.scope or '(none granted or asked)'}")
        lines.append(f"  refresh token  {'yes' if tokens.refresh_token is not None else 'no'}")
    where = "the system keyring" if entry.secrets_in == "keyring" else "the file"
    lines.append(
        f"  saved          {time.strftime('%Y-%m-%d %H:%M', time.localtime(entry.saved_at))} (secrets in {where})"
    )
    return lines


def cmd_auth_status(args: Any) -> int:
    """Print what is stored, for every server or for ``args.url``; exit 0 (64 on a store error)."""
    store = _store(args)
    as_json = bool(getattr(args, "json", False))
    url = getattr(args, "url", None)
    if store is None:
        if as_json:
            _out("[]")
        else:
            _out("--auth-store none keeps nothing: no stored authorization to show")
        return exit_codes.OK
    try:
        if url:
            found = store.load(url, load_secrets=False)
            entries = [found] if found is not None else []
        else:
            entries = store.entries(load_secrets=False)
    except StoreError as exc:
        error(str(exc))
        return exit_codes.USAGE
    _notes(store)
    now = time.time()
    if as_json:
        _out(json.dumps([entry_status(entry, now) for entry in entries], indent=2, ensure_ascii=False))
        return exit_codes.OK
    if not entries:
        where = f"for {mask_url(url)}" if url else "for any server"
        _out(f"no stored authorization {where} (in {store.directory})")
        return exit_codes.OK
    blocks = ["\n".join(_describe(entry, now)) for entry in entries]
    _out("\n\n".join(blocks))
    return exit_codes.OK


def cmd_auth_logout(args: Any) -> int:
    """Remove the stored authorization of ``args.url`` or, with ``args.all``, of every server."""
    url = getattr(args, "url", None)
    everything = bool(getattr(args, "all", False))
    if bool(url) == everything:
        error("auth logout needs a server URL or --all (not both)")
        return exit_codes.USAGE
    store = _store(args)
    if store is None:
        _out("--auth-store none keeps nothing: nothing to remove")
        return exit_codes.OK
    try:
        if everything:
            shown = [mask_url(entry.server_url) for entry in store.entries(load_secrets=False)]
            store.notes.clear()  # said again by forget when it matters
            removed = store.forget()
        else:
            shown = [mask_url(url)]
            removed = store.forget(url)
    except StoreError as exc:
        error(str(exc))
        return exit_codes.USAGE
    _notes(store)
    if everything:
        if removed:
            _out(
                f"removed {removed} stored authorization{'s' if removed != 1 else ''}: " + ", ".join(shown)
                if len(shown) == removed
                else f"removed {removed} stored authorization{'s' if removed != 1 else ''}"
            )
        else:
            _out(f"nothing stored (in {store.directory}): nothing to remove")
    elif removed:
        _out(f"removed the stored authorization for {shown[0]}")
    else:
        _out(f"nothing stored for {shown[0]}: nothing to remove")
    return exit_codes.OK
