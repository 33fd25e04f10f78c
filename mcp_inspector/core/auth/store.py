"""Where the OAuth client keeps what it obtained, per server, across runs of the TUI and CLI.

``TokenStore(mode)``:

- ``"file"`` (the default): one JSON file per server in ``$XDG_STATE_HOME/mcp-inspector/auth/``
  (directory 0700), named by a hash of the server URL, created 0600 and replaced atomically
  (a new file made with ``O_CREAT|O_EXCL``, then renamed over the old one). It holds the
  tokens and a dynamically registered client's secret.
- ``"keyring"``: the secrets (access and refresh tokens, client secret) go to the system
  keyring (the optional ``keyring`` package: ``pip install 'mcp-inspector[keyring]'``); the
  file keeps only what is not secret (client id, issuer, scopes, expiry...).
- ``"none"``: nothing is written; entries live in this object only (CI, one-off runs).

A file that is not ours (corrupt, another format, another server's, not owned by the user,
over ``MAX_FILE`` bytes) is ignored and said in ``notes``: never a traceback. A client secret
the user gave (a pre-registered client, ``--client-secret``) is never written: only one a
Dynamic Client Registration issued. The server URL is kept masked (``mask_url``): the file is
found by the hash of the whole URL.

Every secret saved or loaded is handed to ``masking.remember_secret``, so recordings and
exports mask it wherever a server echoes it.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import stat
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from ..base.errors import InspectorError
from ..base.files import auth_dir, write_atomic
from ..base.masking import mask_oauth_fields, mask_url, remember_secret
from .model import STORES, ClientInfo, TokenSet

FORMAT_NAME = "mcp-inspector-auth"
FORMAT_VERSION = 1
MAX_FILE = 256 * 1024  # bytes: a stored entry is a few KiB; anything bigger is not ours
MAX_NOTES = 50
KEYRING_SERVICE = "mcp-inspector"
KEYRING_EXTRA = "pip install 'mcp-inspector[keyring]'"
_OUR_NAME = re.compile(r"[0-9a-f]{40}\.json\Z")
_REGISTERED_VIA = ("pre-registered", "metadata-document", "dynamic", "stored")
#: Clients whose secret came from the user (command line, config): never written down.
_USER_SECRET = ("pre-registered", "metadata-document")


class StoreError(InspectorError):
    """The store cannot be used as asked (no keyring, a directory that cannot be made...)."""


@dataclass
class StoredAuth:
    """What is kept for one server: the client it registered as and the tokens it holds."""

    server_url: str  # as given to save(); from a file: masked (mask_url), the file is found by hash
    resource: str
    issuer: str | None
    client: ClientInfo | None
    tokens: TokenSet | None
    saved_at: float = field(default_factory=time.time)
    #: where the secrets are: "file", "keyring" or "memory" (set by the store)
    secrets_in: str = "file"
    #: entries(load_secrets=False) of a keyring entry: the non-secret fields only; ``access_token``
    #: is "", ``refresh_token`` and ``client_secret`` "" when one is stored (None when not)
    secrets_loaded: bool = True


def default_auth_dir() -> Path:
    return auth_dir()


def url_key(server_url: str) -> str:
    """The hash that names a server's file: of the URL with its scheme and host lowercased
    and no fragment (``HTTPS://Example.com/mcp#x`` and ``https://example.com/mcp`` are one server)."""
    try:
        parts = urlsplit(server_url.strip())
        netloc = parts.netloc
        userinfo, at, host = netloc.rpartition("@")
        normal = urlunsplit((parts.scheme.lower(), f"{userinfo}{at}{host.lower()}", parts.path or "/", parts.query, ""))
    except ValueError:
        normal = server_url.strip()
    return hashlib.sha256(normal.encode("utf-8", "surrogatepass")).hexdigest()


def _keyring():
    """The ``keyring`` module with a usable backend, or StoreError saying what to do."""
    try:
        import keyring
        import keyring.errors
    except ImportError:
        raise StoreError(
            f"--auth-store keyring needs the keyring package: {KEYRING_EXTRA} (or use --auth-store file)"
        ) from None
    try:
        backend = keyring.get_keyring()
    except Exception as exc:  # a broken backend configuration (PYTHON_KEYRING_BACKEND...)
        raise StoreError(
            f"the system keyring cannot be used ({exc.__class__.__name__}: {exc}); use --auth-store file"
        ) from None
    priority = getattr(backend, "priority", 1)
    name = f"{type(backend).__module__}.{type(backend).__name__}"
    if name.startswith("keyring.backends.fail.") or (isinstance(priority, (int, float)) and priority < 0):
        raise StoreError(
            "no system keyring is available here (keyring found no backend: no Secret Service, "
            "macOS Keychain or Windows Credential Locker); use --auth-store file"
        )
    return keyring


def _str(value: Any, name: str, optional: bool = True) -> str | None:
    if value is None and optional:
        return None
    if not isinstance(value, str):
        raise ValueError(f"{name!r} is not a string")
    return value


def _number(value: Any, name: str) -> float | None:
    if value is None:
        return None
    if type(value) not in (int, float) or value != value or abs(value) > 1e12:
        raise ValueError(f"{name!r} is not a time")
    return float(value)


def _client_record(client: ClientInfo) -> dict[str, Any]:
    return {
        "client_id": client.client_id,
        "token_auth_method": client.token_auth_method,
        "registered_via": client.registered_via,
        "issuer": client.issuer,
        "redirect_uris": list(client.redirect_uris),
        "registration": mask_oauth_fields(client.registration) if client.registration is not None else None,
    }


def _client_from(record: Any, secret: str | None) -> ClientInfo:
    if not isinstance(record, dict):
        raise ValueError("'client' is not an object")
    via = record.get("registered_via")
    if via not in _REGISTERED_VIA:
        raise ValueError("'client.registered_via' is not known")
    uris = record.get("redirect_uris") or []
    if not isinstance(uris, list) or not all(isinstance(uri, str) for uri in uris):
        raise ValueError("'client.redirect_uris' is not a list of strings")
    registration = record.get("registration")
    if registration is not None and not isinstance(registration, dict):
        raise ValueError("'client.registration' is not an object")
    return ClientInfo(
        client_id=_str(record.get("client_id"), "client.client_id", optional=False) or "",
        client_secret=secret,
        token_auth_method=_str(record.get("token_auth_method"), "client.token_auth_method") or "none",
        registered_via=via,
        issuer=_str(record.get("issuer"), "client.issuer"),
        redirect_uris=list(uris),
        registration=registration,
    )


def _tokens_record(tokens: TokenSet) -> dict[str, Any]:
    return {
        "token_type": tokens.token_type,
        "expires_at": tokens.expires_at,
        "scope": tokens.scope,
        "issuer": tokens.issuer,
        "resource": mask_url(tokens.resource) if tokens.resource else tokens.resource,
        "client_id": tokens.client_id,
        "dpop_jkt": tokens.dpop_jkt,
        "has_refresh_token": tokens.refresh_token is not None,
    }


def _tokens_from(record: Any, access: str | None, refresh: str | None, resource: str | None) -> TokenSet:
    if not isinstance(record, dict):
        raise ValueError("'tokens' is not an object")
    if access is None:
        raise ValueError("the access token is missing")
    return TokenSet(
        access_token=access,
        token_type=_str(record.get("token_type"), "tokens.token_type") or "Bearer",
        refresh_token=refresh,
        expires_at=_number(record.get("expires_at"), "tokens.expires_at"),
        scope=_str(record.get("scope"), "tokens.scope"),
        issuer=_str(record.get("issuer"), "tokens.issuer"),
        resource=resource or _str(record.get("resource"), "tokens.resource"),
        client_id=_str(record.get("client_id"), "tokens.client_id"),
        dpop_jkt=_str(record.get("dpop_jkt"), "tokens.dpop_jkt"),
    )


def _remember(entry: StoredAuth) -> None:
    if entry.tokens is not None:
        remember_secret(entry.tokens.access_token, entry.tokens.refresh_token)
    if entry.client is not None:
        remember_secret(entry.client.client_secret)


class TokenStore:
    """``load``/``save``/``forget``/``entries`` of stored authorizations (see the module's text)."""

    def __init__(self, mode: str = "file", directory: Path | str | None = None) -> None:
        if mode not in STORES:
            raise StoreError(f"unknown token store {mode!r} (one of {', '.join(STORES)})")
        self.mode = mode
        self.directory = Path(directory) if directory is not None else default_auth_dir()
        self.notes: list[str] = []  # files skipped and why, for the UI to say
        self._memory: dict[str, StoredAuth] = {}
        self._keyring = _keyring() if mode == "keyring" else None

    # -- the interface ---------------------------------------------------------
    def load(self, server_url: str, load_secrets: bool = True) -> StoredAuth | None:
        """What is stored for ``server_url`` (None: nothing, or nothing usable: see ``notes``);
        ``load_secrets=False``: as ``entries`` says."""
        key = url_key(server_url)
        if self.mode == "none":
            entry = self._memory.get(key)
        else:
            entry = self._read(self._path(key), key=key, load_secrets=load_secrets)
            if entry is not None:
                entry.server_url = server_url  # the caller's, unmasked
        if entry is not None and entry.secrets_loaded:
            _remember(entry)
        return entry

    def save(self, entry: StoredAuth) -> None:
        """Keep ``entry`` for its server (replacing what was there). StoreError when it cannot be written."""
        _remember(entry)
        key = url_key(entry.server_url)
        if self.mode == "none":
            entry.secrets_in = "memory"
            self._memory[key] = entry
            return
        keep_client_secret = entry.client is not None and entry.client.registered_via not in _USER_SECRET
        in_file = self.mode == "file"
        secret_values: dict[str, str | None] = {
            "access_token": entry.tokens.access_token if entry.tokens else None,
            "refresh_token": entry.tokens.refresh_token if entry.tokens else None,
            "client_secret": entry.client.client_secret if entry.client and keep_client_secret else None,
        }
        # a resource URL with credentials in it (``?api_key=``): masked in the file, exact with the secrets
        for name, url in (
            ("resource", entry.resource),
            ("tokens_resource", entry.tokens.resource if entry.tokens else None),
        ):
            if url is not None and mask_url(url) != url:
                secret_values[name] = url
        document: dict[str, Any] = {
            "format": FORMAT_NAME,
            "version": FORMAT_VERSION,
            "key": key,
            "server_url": mask_url(entry.server_url),
            "resource": mask_url(entry.resource),
            "issuer": entry.issuer,
            "saved_at": entry.saved_at,
            "secrets": self.mode,
            "client": _client_record(entry.client) if entry.client is not None else None,
            "tokens": _tokens_record(entry.tokens) if entry.tokens is not None else None,
        }
        if entry.client is not None:
            document["client"]["has_client_secret"] = secret_values["client_secret"] is not None
        if in_file:
            document["secret_values"] = {name: value for name, value in secret_values.items() if value is not None}
        else:
            self._keyring_set(key, secret_values)
        self._write(key, document)
        entry.secrets_in = self.mode

    def forget(self, server_url: str | None = None) -> int:
        """Remove what is stored for ``server_url`` (None: for every server); how many entries went."""
        if self.mode == "none":
            if server_url is None:
                count = len(self._memory)
                self._memory.clear()
                return count
            return 1 if self._memory.pop(url_key(server_url), None) is not None else 0
        if server_url is None:  # every file named as ours (a torn one too); another name is left alone
            return sum(self._remove(path) for path in self._files() if _OUR_NAME.match(path.name))
        removed = self._remove(self._path(url_key(server_url)))
        if not removed:  # a URL as `auth status` shows it (masked): match the shown form
            for path in self._files():
                document = self._document(path, quiet=True)
                if document is not None and document.get("server_url") == server_url:
                    removed += self._remove(path)
        return removed

    def entries(self, load_secrets: bool = True) -> list[StoredAuth]:
        """Every stored entry, oldest saved first; ``load_secrets=False`` does not ask the keyring
        (``auth status`` shows no secret, so it needs none; see ``StoredAuth.secrets_loaded``)."""
        if self.mode == "none":
            found = list(self._memory.values())
        else:
            found = [
                entry for path in self._files() if (entry := self._read(path, load_secrets=load_secrets)) is not None
            ]
        for entry in found:
            if entry.secrets_loaded:
                _remember(entry)
        return sorted(found, key=lambda entry: entry.saved_at)

    # -- files -----------------------------------------------------------------
    def _path(self, key: str) -> Path:
        return self.directory / f"{key[:40]}.json"

    def _files(self) -> list[Path]:
        try:
            return sorted(
                path for path in self.directory.iterdir() if path.suffix == ".json" and not path.name.startswith(".")
            )
        except FileNotFoundError:
            return []
        except OSError as exc:
            self._note(f"cannot list the token store {self.directory}: {exc.strerror or exc}")
            return []

    def _note(self, text: str) -> None:
        if text not in self.notes:
            self.notes.append(text)
            del self.notes[:-MAX_NOTES]

    def _document(self, path: Path, quiet: bool = False) -> dict[str, Any] | None:
        """The parsed file if it is one of ours (checked: owner, size, format); else None and a note."""
        skip = (lambda why: None) if quiet else (lambda why: self._note(f"ignored {path}: {why}"))
        flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NONBLOCK", 0)
        try:
            fd = os.open(path, flags)
        except FileNotFoundError:
            return None
        except OSError as exc:
            return skip(f"cannot be read ({exc.strerror or exc})")
        try:
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode):
                return skip("not a regular file")
            if hasattr(os, "getuid") and info.st_uid != os.getuid():
                return skip("owned by another user")
            if info.st_size > MAX_FILE:
                return skip(f"over {MAX_FILE // 1024} KiB, not a token store file")
            with os.fdopen(fd, "rb", closefd=False) as handle:
                data = handle.read(MAX_FILE + 1)
        except OSError as exc:
            return skip(f"cannot be read ({exc.strerror or exc})")
        finally:
            os.close(fd)
        if len(data) > MAX_FILE:
            return skip(f"over {MAX_FILE // 1024} KiB, not a token store file")
        try:
            document = json.loads(data.decode("utf-8"))
        except (UnicodeDecodeError, ValueError, RecursionError) as exc:
            return skip(f"not valid JSON ({exc.__class__.__name__}), not a token store file")
        if not isinstance(document, dict) or document.get("format") != FORMAT_NAME:
            return skip("not a token store file")
        if document.get("version") != FORMAT_VERSION:
            return skip(f"format version {document.get('version')!r} is not {FORMAT_VERSION} (another mcp-inspector?)")
        return document

    def _read(self, path: Path, key: str | None = None, load_secrets: bool = True) -> StoredAuth | None:
        document = self._document(path)
        if document is None:
            return None
        stored_key = document.get("key")
        if (
            not isinstance(stored_key, str)
            or path.name != f"{stored_key[:40]}.json"
            or (key is not None and stored_key != key)
        ):
            self._note(f"ignored {path}: it is for another server URL")
            return None
        try:
            return self._entry(document, stored_key, load_secrets)
        except ValueError as exc:
            self._note(f"ignored {path}: {exc}")
            return None
        except StoreError as exc:
            self._note(f"{path}: {exc}")
            return None

    def _entry(self, document: dict[str, Any], key: str, load_secrets: bool) -> StoredAuth:
        where = document.get("secrets")
        if where not in ("file", "keyring"):
            raise ValueError("'secrets' is neither file nor keyring")
        client_record, tokens_record = document.get("client"), document.get("tokens")
        values: Any
        loaded = True
        if where == "file":
            values = document.get("secret_values", {})
            if not isinstance(values, dict):
                raise ValueError("'secret_values' is not an object")
        elif load_secrets:
            values = self._keyring_get(key)
            if values is None:
                raise ValueError("its secrets are not in the system keyring any more")
        else:
            loaded = False
            has_refresh = isinstance(tokens_record, dict) and tokens_record.get("has_refresh_token") is True
            has_secret = isinstance(client_record, dict) and client_record.get("has_client_secret") is True
            values = {
                "access_token": "",
                "refresh_token": "" if has_refresh else None,
                "client_secret": "" if has_secret else None,
            }
        for name in ("access_token", "refresh_token", "client_secret", "resource", "tokens_resource"):
            _str(values.get(name), name)
        tokens = (
            _tokens_from(
                tokens_record, values.get("access_token"), values.get("refresh_token"), values.get("tokens_resource")
            )
            if tokens_record is not None
            else None
        )
        client = _client_from(client_record, values.get("client_secret")) if client_record is not None else None
        saved_at = _number(document.get("saved_at"), "saved_at")
        return StoredAuth(
            server_url=_str(document.get("server_url"), "server_url", optional=False) or "",
            resource=values.get("resource") or _str(document.get("resource"), "resource", optional=False) or "",
            issuer=_str(document.get("issuer"), "issuer"),
            client=client,
            tokens=tokens,
            saved_at=saved_at if saved_at is not None else 0.0,
            secrets_in=where,
            secrets_loaded=loaded,
        )

    def _private_directory(self) -> None:
        try:
            self.directory.mkdir(parents=True, exist_ok=True, mode=0o700)
            info = self.directory.stat()
            if stat.S_IMODE(info.st_mode) & 0o077 and (not hasattr(os, "getuid") or info.st_uid == os.getuid()):
                os.chmod(self.directory, 0o700)
        except OSError as exc:
            raise StoreError(f"cannot make the token store directory {self.directory}: {exc.strerror or exc}") from None

    def _write(self, key: str, document: dict[str, Any]) -> None:
        self._private_directory()
        path = self._path(key)
        payload = json.dumps(document, indent=1, ensure_ascii=False).encode("utf-8")
        try:
            write_atomic(path, payload, prefix=f".{key[:16]}-")
        except OSError as exc:
            raise StoreError(f"cannot write the token store file {path}: {exc.strerror or exc}") from None

    def _remove(self, path: Path) -> int:
        """1 when ``path`` (one of our files, or an ignored one of that name) was removed."""
        document = self._document(path, quiet=True)
        if document is not None and document.get("secrets") == "keyring" and isinstance(document.get("key"), str):
            try:
                self._keyring_delete(document["key"])
            except StoreError as exc:
                self._note(f"the keyring entry of {document.get('server_url')} was not removed: {exc}")
        try:
            os.unlink(path)
        except FileNotFoundError:
            return 0
        except OSError as exc:
            self._note(f"cannot remove {path}: {exc.strerror or exc}")
            return 0
        return 1

    # -- the keyring -------------------------------------------------------------
    def _ring(self):
        if self._keyring is None:
            self._keyring = _keyring()  # a file saved in keyring mode, read in file mode
        return self._keyring

    @staticmethod
    def _ring_user(key: str) -> str:
        return f"auth {key}"

    def _keyring_set(self, key: str, values: dict[str, str | None]) -> None:
        ring = self._ring()
        try:
            ring.set_password(KEYRING_SERVICE, self._ring_user(key), json.dumps(values))
        except Exception as exc:  # keyring.errors.PasswordSetError, a locked keyring, a D-Bus failure...
            raise StoreError(f"the system keyring refused the tokens ({exc.__class__.__name__}: {exc})") from None

    def _keyring_get(self, key: str) -> dict[str, Any] | None:
        ring = self._ring()
        try:
            text = ring.get_password(KEYRING_SERVICE, self._ring_user(key))
        except Exception as exc:
            raise StoreError(f"the system keyring could not be read ({exc.__class__.__name__}: {exc})") from None
        if text is None:
            return None
        try:
            values = json.loads(text)
        except ValueError:
            return None
        return values if isinstance(values, dict) else None

    def _keyring_delete(self, key: str) -> None:
        ring = self._ring()
        try:
            ring.delete_password(KEYRING_SERVICE, self._ring_user(key))
        except Exception as exc:
            if type(exc).__name__ == "PasswordDeleteError":  # nothing there: already gone
                return
            raise StoreError(f"{exc.__class__.__name__}: {exc}") from None
