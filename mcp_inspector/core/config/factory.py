"""One place that turns a ``ServerSpec`` into a transport: stdio for a command,
HTTP (Streamable HTTP, with fallback to the 2024-11-05 HTTP+SSE transport) for a URL."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..base.framing import MAX_LINE_BYTES
from ..transport.base import Transport, TransportError

if TYPE_CHECKING:
    from ..started import StartedServer
    from ..traffic.http_log import HttpLog
    from .servers import ServerSpec

#: ``ServerSpec.transport`` values for a URL, and the HttpTransport mode each means.
URL_MODES = {
    "http": "auto",  # Streamable HTTP, falling back to HTTP+SSE when the server is that old
    "auto": "auto",
    "streamable-http": "streamable-http",
    "streamable_http": "streamable-http",
    "streamableHttp": "streamable-http",
    "sse": "sse",
}


#: Server processes started before the UI was built (``offer_started``), by what they run.
_offered: dict[tuple[Any, ...], StartedServer] = {}


def _launch_key(spec: ServerSpec) -> tuple[Any, ...]:
    return (tuple(spec.command or ()), tuple(sorted((spec.env or {}).items())), spec.cwd)


def offer_started(spec: ServerSpec, process: StartedServer) -> None:
    """A process already running ``spec``'s command (the TUI starts it before importing its UI, so
    the server boots while the UI does): the next stdio transport made for that spec adopts it."""
    _offered[_launch_key(spec)] = process


def discard_offered() -> None:
    """End any offered process no transport adopted (the UI failed before connecting)."""
    while _offered:
        _, process = _offered.popitem()
        process.discard()


def make_transport(
    spec: ServerSpec,
    *,
    max_frame_bytes: int = MAX_LINE_BYTES,
    http_log: HttpLog | None = None,
    insecure: bool = False,
    started: StartedServer | None = None,
    write_stall: float = 30.0,
    auth_log: Any = None,
    auth_ui: Any = None,
    auth_store: Any = None,
    defer_auth: bool = False,
    **http_options: Any,
) -> Transport:
    """The transport for ``spec``.

    ``insecure`` (or ``spec.insecure``) turns TLS certificate verification off. A URL gets
    an OAuth client (``make_auth``) unless the spec says not to; ``auth_log`` (the Auth view's
    AuthLog), ``auth_ui`` (how to ask the user) and ``auth_store`` (a TokenStore) go to it;
    ``auth=`` in ``http_options`` gives the transport a hook of one's own (None: none).
    ``http_options`` go to ``HttpTransport`` as they are (``connect_timeout``,
    ``read_timeout``, ``mode``) and override what the spec says."""
    if spec.url:
        from ..transport.http import HttpTransport

        mode = http_options.pop("mode", None) or URL_MODES.get(spec.transport or "http")
        if mode is None:
            raise TransportError(f"unknown transport {spec.transport!r} for a URL (use http, streamable-http or sse)")
        verify = not (insecure or bool(getattr(spec, "insecure", False)))
        if "auth" not in http_options:
            http_options["auth"] = make_auth(
                spec, http_log=http_log, log=auth_log, ui=auth_ui, store=auth_store, defer=defer_auth
            )
        return HttpTransport(
            spec.url,
            headers=dict(spec.headers or {}),
            mode=mode,
            verify=verify,
            max_frame_bytes=max_frame_bytes,
            http_log=http_log,
            **http_options,
        )
    if not spec.command:
        raise TransportError(f"server {spec.name!r} has neither a command nor a URL")
    from ..base.masking import is_secret_name, remember_secret
    from ..transport.stdio import StdioTransport

    # a secret the user gives the server (API_TOKEN=...) is masked wherever the server echoes it
    remember_secret(*(str(value) for name, value in (spec.env or {}).items() if is_secret_name(str(name))))
    if started is None and _offered:
        started = _offered.pop(_launch_key(spec), None)  # adopted even if it exited: its stderr says why
    return StdioTransport(
        spec.command, spec.env, spec.cwd, started=started, write_stall=write_stall, max_line_bytes=max_frame_bytes
    )


def wants_auth(spec: ServerSpec) -> bool:
    """A URL server gets an OAuth client unless --no-auth (or "auth": false) said not to, or the
    user sends their own Authorization header (-H, --bearer-token) and gave no OAuth option."""
    if not spec.url or getattr(spec, "no_auth", False):
        return False
    own = any(name.lower() == "authorization" for name in (spec.headers or {}))
    return not own or getattr(spec, "auth", None) is not None


def make_auth(
    spec: ServerSpec,
    *,
    http_log: HttpLog | None = None,
    log: Any = None,
    ui: Any = None,
    store: Any = None,
    defer: bool = False,
) -> Any:
    """The OAuthManager for a URL spec (None when ``wants_auth`` says no). The token store is
    the spec's ``auth_store`` mode (file by default) unless ``store`` is given. ``defer`` (the
    CLI): with no OAuth option and nothing in the token store, a ``DeferredAuth`` that makes the
    manager at the first challenge (core/auth/deferred.py: ~5 ms of imports spared otherwise)."""
    if not wants_auth(spec):
        return None
    if defer and store is None and getattr(spec, "auth", None) is None:
        from ..auth.deferred import DeferredAuth, nothing_stored

        if nothing_stored():
            assert spec.url is not None
            return DeferredAuth(spec.url, lambda: make_auth(spec, http_log=http_log, log=log, ui=ui, store=store))
    from ..auth.manager import OAuthManager
    from ..auth.model import AuthLog, AuthSettings

    settings = getattr(spec, "auth", None) or AuthSettings()
    if store is None:
        from ..auth.store import TokenStore

        try:
            store = TokenStore(settings.store)
        except Exception as exc:  # StoreError: no keyring...
            raise TransportError(f"the token store cannot be used: {exc}") from None
    assert spec.url is not None
    return OAuthManager(
        settings, spec.url, log=log if log is not None else AuthLog(), http_log=http_log, store=store, ui=ui
    )
