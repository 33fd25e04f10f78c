"""An OAuth client made when the connection first needs one (a cold command's start-up).

``OAuthManager`` and what it imports (the model, the token store, the flow's HTTP client and
opener: ~5 ms of a cold ``--url ... tools``) were loaded for every URL server, though most
connect without authorization. When the token store holds nothing at all (its directory is
missing or empty) and the user gave no OAuth option, no request of the connection can carry a
token until a flow has run: ``DeferredAuth`` answers ``prepare`` as the manager does then
(another origin's request loses any ``Authorization``/``DPoP`` header; nothing is added) and
builds the manager at the first challenge from the server's origin (a 401, a 403
``insufficient_scope``, a DPoP nonce), which from then on does everything, as it always did.
Stdlib and transport only: the point is what this module does not import.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from ..base.files import auth_dir
from ..transport.credentials import CredentialPolicy
from ..transport.http_util import AuthHook


def nothing_stored() -> bool:
    """The file token store holds no entry for any server (its directory is missing or empty)."""
    try:
        with os.scandir(auth_dir()) as entries:
            return next(entries, None) is None
    except FileNotFoundError:
        return True
    except OSError:  # unreadable: let the store itself say what is wrong
        return False


class DeferredAuth:
    """The transport's AuthHook until a challenge comes; then the OAuthManager ``build`` makes."""

    def __init__(self, server_url: str, build: Callable[[], AuthHook]) -> None:
        #: the token goes only to the server's origin (the rule the manager applies too)
        self.credentials = CredentialPolicy(server_url)
        self._build = build
        self.manager: AuthHook | None = None
        self._client: Any = None
        self._protocol_version: str | None = None

    @property
    def protocol_version(self) -> str | None:
        return self.manager.protocol_version if self.manager is not None else self._protocol_version

    @protocol_version.setter
    def protocol_version(self, version: str | None) -> None:
        self._protocol_version = version
        if self.manager is not None:
            self.manager.protocol_version = version

    @property
    def authorizing(self) -> bool:
        """A flow is running (request timeouts wait): never before the manager exists."""
        return bool(getattr(self.manager, "authorizing", False))

    def attach(self, client: Any) -> None:
        self._client = client
        if self.manager is not None:
            self.manager.attach(client)

    def built(self) -> AuthHook:
        """The manager, made now if it was not yet (the first challenge calls this)."""
        if self.manager is None:
            manager = self._build()
            manager.protocol_version = self._protocol_version
            if self._client is not None:
                manager.attach(self._client)
            self.manager = manager
        return self.manager

    async def prepare(
        self, method: str, url: str, headers: dict[str, str], *, state: dict[str, Any] | None = None
    ) -> None:
        if self.manager is not None:
            await self.manager.prepare(method, url, headers, state=state)
            return
        if state is not None:
            state.setdefault("generation", 0)  # the manager's count of finished flows: none yet
        if not self.credentials.allows(url):  # another origin: no credential goes there
            for name in [name for name in headers if name.lower() in ("authorization", "dpop")]:
                del headers[name]

    async def challenged(
        self,
        method: str,
        url: str,
        status: int,
        headers: Any,
        attempt: int,
        *,
        sent: dict[str, str] | None = None,
        state: dict[str, Any] | None = None,
    ) -> bool:
        if self.manager is None and not self.credentials.allows(url):
            return False  # another origin's challenge: no flow runs (as the manager answers it)
        return await self.built().challenged(method, url, status, headers, attempt, sent=sent, state=state)

    async def retried(self, method: str, url: str, status: int, exchange_id: int | None = None) -> None:
        if self.manager is not None:  # (a retry follows a flow, which made the manager)
            await self.manager.retried(method, url, status, exchange_id)
