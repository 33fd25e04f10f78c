"""Which era a server speaks, and connecting in it (2026-07-28 ``basic/versioning.mdx``
§Backward Compatibility, ``basic/transports/stdio.mdx`` §Backward Compatibility).

``auto``: probe with ``server/discover`` (its ``_meta`` carrying 2026-07-28). A
``DiscoverResult`` or a recognised modern error (``-32022`` with ``data.supported``,
``-32020``, ``-32021``) means modern; any other error (a malformed reply too), or no
answer within a short timeout, means legacy: ``initialize`` on the same connection. Over HTTP, a request
the transport reports undelivered with a ``legacy_hint`` falls back the same way,
and when ``initialize`` gets one too, to the deprecated HTTP+SSE transport.
"""

from __future__ import annotations

from typing import Any, Protocol

from ..base.errors import ConnectError, EraNotSpoken, ProtocolViolation, RequestTimeout, RpcError, TransportFailure
from ..base.jsonrpc import METHOD_NOT_FOUND
from ..protocol.versions import LATEST_LEGACY, LATEST_MODERN, LEGACY_VERSIONS, MODERN_VERSIONS, era_of
from ..transport.base import AUTH_FAILED, Transport, TransportError
from .modern import UNSUPPORTED_PROTOCOL_VERSION, check_result_type, modern_error

DISCOVER_TIMEOUT = 5.0  # seconds a silent legacy server may stall a connect


class EraSession(Protocol):
    """What choosing the era needs of the session (mcp_session.py imports this module)."""

    era: str | None
    meta_version: str | None

    @property
    def transport(self) -> Transport: ...
    @property
    def timeout(self) -> float | None: ...
    @property
    def init_timeout(self) -> float | None: ...
    @property
    def discover_timeout(self) -> float: ...
    @property
    def proposed_version(self) -> str | None: ...
    @property
    def requested_era(self) -> str: ...
    @property
    def era_given(self) -> str: ...
    @property
    def era_hint(self) -> str | None: ...

    async def send_initialize(self, version: str, reason: str) -> dict[str, Any]: ...
    async def send_discover(self, version: str, timeout: float | None) -> dict[str, Any]: ...
    def become_modern(self, version: str, result: dict[str, Any], reason: str) -> None: ...


def resolve(era: str, protocol_version: str | None) -> tuple[str, str, str | None]:
    """(the era to use: auto, legacy or modern; why, when it was given; an error
    message for a contradiction)."""
    if era not in ("auto", "legacy", "modern"):
        return "auto", "", f"unknown era {era!r} (auto, legacy or modern)"
    implied = era_of(protocol_version)
    if era == "auto":
        if protocol_version is None:
            return "auto", "", None
        if implied is None:  # an unknown revision is proposed in initialize as it is (the server decides)
            return "legacy", f"protocol version {protocol_version} was asked for (not a modern revision)", None
        return implied, f"protocol version {protocol_version} was asked for (a {implied} revision)", None
    if protocol_version is not None and implied != era:
        what = f"a {implied} revision" if implied else "not a revision mcp-inspector knows"
        return (
            era,
            "",
            (
                f"--era {era} contradicts protocol version {protocol_version} ({what}; "
                f"legacy: {', '.join(LEGACY_VERSIONS)}; modern: {', '.join(MODERN_VERSIONS)})"
            ),
        )
    return era, f"--era {era}", None


def _supported(data: Any) -> list[str]:
    supported = data.get("supported") if isinstance(data, dict) else None
    return [v for v in supported if isinstance(v, str)] if isinstance(supported, list) else []


async def connect(session: EraSession) -> dict[str, Any]:
    """Detect the era (unless it was given) and connect in it; returns the
    DiscoverResult or the InitializeResult."""
    try:
        return await _connect(session)
    except BaseException:
        if session.era is None:  # no era was reached: requests must not carry a probe's _meta
            session.meta_version = None
            session.transport.set_protocol_version(None)
        raise


async def _connect(session: EraSession) -> dict[str, Any]:
    asked = session.requested_era
    if asked == "legacy":
        return await legacy(session, session.era_given)
    if asked == "auto" and session.era_hint == "legacy" and session.proposed_version is None:
        # Legacy at its last connection (config/eras.py): initialize first, no probe before it. A
        # server that changed era rejects it (a modern one with -32022: legacy() goes modern); any
        # other refusal and the probe runs as for an unknown server.
        try:
            return await legacy(session, "legacy at the last connection: initialize without the server/discover probe")
        except (RpcError, ConnectError):
            pass
    forced = asked == "modern"
    version = session.proposed_version or LATEST_MODERN
    tried: dict[str, int] = {}  # version -> times proposed
    while True:
        tried[version] = tried.get(version, 0) + 1
        limits = [t for t in (session.discover_timeout, session.timeout, session.init_timeout) if t is not None]
        timeout = session.init_timeout if forced else min(limits, default=DISCOVER_TIMEOUT)
        try:
            result = await session.send_discover(version, timeout=timeout)
        except RequestTimeout as exc:
            if forced:
                raise ConnectError(f"--era modern: server/discover got no answer within {exc.seconds:g} s") from None
            return await legacy(
                session, f"server/discover got no answer within {exc.seconds:g} s: fell back to initialize"
            )
        except TransportFailure as exc:
            if exc.reason.startswith(AUTH_FAILED):  # says all: what the flow found wrong, not which request met it
                raise ConnectError(exc.reason) from None
            if forced and exc.legacy_hint:  # an HTTP 4xx whose body is no modern error: a legacy server's
                raise EraNotSpoken(
                    f"server/discover failed: {exc.reason}",
                    era="modern",
                    request=_discover(version),
                    answer=_describe_failure(exc),
                ) from None
            if forced or not exc.legacy_hint:
                raise ConnectError(f"server/discover failed: {exc.reason}") from None
            return await legacy(
                session, f"server/discover failed ({exc.reason}), as a legacy server's would: fell back to initialize"
            )
        except RpcError as exc:
            name = modern_error(exc.code)
            if exc.code == UNSUPPORTED_PROTOCOL_VERSION:
                supported = _supported(exc.data)
                # a version the server lists as supported is retried once even if it was the one
                # rejected (the spec: retry with a mutually supported version)
                ours = [v for v in MODERN_VERSIONS if v in supported and tried.get(v, 0) < 2]
                if ours:
                    version = ours[-1]
                    continue
                legacy_ok = [v for v in LEGACY_VERSIONS if v in supported]
                if legacy_ok and forced:
                    raise EraNotSpoken(
                        f"--era modern: the server supports legacy revisions only ({', '.join(supported)}): "
                        "try --era auto or --era legacy",
                        era="modern",
                        request=_discover(version),
                        answer=f"{exc} (supported: {', '.join(supported)})",
                    ) from None
                if legacy_ok and not forced:
                    return await legacy(
                        session,
                        f"server/discover: the server supports no modern revision mcp-inspector speaks "
                        f"(supported: {', '.join(supported)}): fell back to initialize",
                        version=legacy_ok[-1],
                    )
                raise ConnectError(
                    f"the server supports none of the protocol versions mcp-inspector speaks (it supports: "
                    f"{', '.join(supported) or 'none listed'}; mcp-inspector: "
                    f"{', '.join(LEGACY_VERSIONS + MODERN_VERSIONS)})"
                ) from None
            if name is not None:
                raise ConnectError(
                    f"server/discover failed with the modern error {exc.code} ({name}): {exc.message}"
                ) from None
            if forced:  # "any other error means legacy" (basic/transports/stdio.mdx)
                raise EraNotSpoken(
                    f"--era modern: server/discover failed: {exc} (a legacy server? try --era auto)",
                    era="modern",
                    request=_discover(version),
                    answer=str(exc),
                ) from None
            return await legacy(
                session, f"server/discover failed with {exc.code} {exc.message}: fell back to initialize"
            )
        except ProtocolViolation as exc:
            # A reply that is neither a DiscoverResult nor a modern error (a result that is
            # not an object, a malformed error): "any other error" (stdio.mdx), so legacy.
            if forced:
                raise ConnectError(f"--era modern: server/discover failed: {exc}") from None
            return await legacy(session, f"server/discover got a malformed reply ({exc}): fell back to initialize")
        versions = result.get("supportedVersions")
        if not isinstance(versions, list):
            if forced:
                raise ConnectError(
                    "--era modern: the server/discover result has no supportedVersions array (not a DiscoverResult)"
                )
            return await legacy(
                session,
                "server/discover answered without supportedVersions (not a DiscoverResult): fell back to initialize",
            )
        if version not in versions:
            ours = [v for v in MODERN_VERSIONS if v in versions and v not in tried]
            if ours:
                version = ours[-1]
                continue
            legacy_ok = [v for v in LEGACY_VERSIONS if v in versions]
            if legacy_ok and forced:
                raise EraNotSpoken(
                    f"--era modern: the server lists legacy revisions only ({', '.join(map(str, versions))}): "
                    "try --era auto or --era legacy",
                    era="modern",
                    request=_discover(version),
                    answer=f"a DiscoverResult listing {', '.join(map(str, versions))}",
                )
            if legacy_ok and not forced:
                return await legacy(
                    session,
                    f"server/discover lists no modern revision mcp-inspector speaks "
                    f"({', '.join(map(str, versions))}): fell back to initialize",
                    version=legacy_ok[-1],
                )
            raise ConnectError(
                f"the server supports none of the protocol versions mcp-inspector speaks (it lists: "
                f"{', '.join(map(str, versions)) or 'none'})"
            )
        try:  # judged before the session turns modern: a failed connect leaves no era behind
            check_result_type("server/discover", result)
        except ProtocolViolation as exc:
            raise ConnectError(f"server/discover: {exc}") from None
        reason = "server/discover answered with a DiscoverResult" + (f" ({session.era_given})" if forced else "")
        session.become_modern(version, result, reason)
        return result


async def legacy(session: EraSession, reason: str, version: str | None = None) -> dict[str, Any]:
    """The legacy handshake; over HTTP, falls back to HTTP+SSE when the transport says so."""
    proposed = (
        version or (session.proposed_version if era_of(session.proposed_version) != "modern" else None) or LATEST_LEGACY
    )
    session.transport.set_protocol_version(None)
    try:
        return await session.send_initialize(proposed, reason)
    except TransportFailure as exc:
        if not (exc.legacy_hint and getattr(session.transport, "can_fall_back", False)):
            raise ConnectError(f"initialize failed: {exc.reason}") from None
        why = f"initialize failed over Streamable HTTP ({exc.reason}): fell back to the HTTP+SSE transport"
        try:
            # can_fall_back (above) is True on the Streamable HTTP transport only, which has this
            await session.transport.fall_back_to_sse(why)  # type: ignore[attr-defined]  # only the Streamable HTTP transport (can_fall_back) has it
        except TransportError as failed:
            raise ConnectError(str(failed)) from None
        try:
            # the same version as over Streamable HTTP, as --transport sse proposes: the HTTP+SSE
            # transport is a 2024-11-05 design, but servers that speak it often speak later revisions
            return await session.send_initialize(proposed, f"{reason}; {why}" if reason else why)
        except TransportFailure as again:
            raise ConnectError(f"initialize failed over HTTP+SSE too: {again.reason}") from None
    except RpcError as exc:
        supported = _supported(exc.data) if exc.code == UNSUPPORTED_PROTOCOL_VERSION else []
        ours = [v for v in MODERN_VERSIONS if v in supported]
        if session.requested_era == "auto" and ours:
            # A recognised modern error identifies a modern server (versioning.mdx): e.g. one
            # too slow to answer the probe in time. Modern after all, with a version it lists.
            return await _modern_after_initialize(
                session,
                ours[-1],
                f"{reason}; initialize was rejected with -32022 (supported: {', '.join(supported)}): a modern server",
            )
        if session.era_given == "--era legacy":
            message = (
                f"the server rejected initialize ({exc}); it may speak only 2026-07-28: try --era auto or --era modern"
            )
            # no initialize method, or a version refusal listing no legacy revision: a modern server's
            if exc.code == METHOD_NOT_FOUND or (
                exc.code == UNSUPPORTED_PROTOCOL_VERSION and not any(v in LEGACY_VERSIONS for v in supported)
            ):
                raise EraNotSpoken(
                    message, era="legacy", request=f"initialize (protocol version {proposed})", answer=str(exc)
                ) from None
            raise ConnectError(message) from None
        raise


def _discover(version: str) -> str:
    return f"server/discover (protocol version {version})"


def _describe_failure(exc: TransportFailure) -> str:
    return exc.reason if exc.status is None or str(exc.status) in exc.reason else f"{exc.reason} (HTTP {exc.status})"


async def _modern_after_initialize(session: EraSession, version: str, reason: str) -> dict[str, Any]:
    """``server/discover`` again, with a version the server said it supports."""
    try:
        result = await session.send_discover(version, timeout=session.init_timeout)
    except (RpcError, RequestTimeout, TransportFailure, ProtocolViolation) as exc:
        raise ConnectError(f"{reason}, but server/discover with {version} failed too: {exc}") from None
    versions = result.get("supportedVersions")
    if not isinstance(versions, list) or version not in versions:
        raise ConnectError(f"{reason}, but its server/discover result does not list {version} in supportedVersions")
    try:
        check_result_type("server/discover", result)
    except ProtocolViolation as exc:
        raise ConnectError(f"server/discover: {exc}") from None
    session.become_modern(version, result, f"{reason}: server/discover with {version} answered with a DiscoverResult")
    return result
