"""``AuthHttp``: the HTTP requests of an authorization flow (metadata, registration, token,
the authorization URL in ``fetch`` mode), on the connection's ``httpx2.AsyncClient``.

Each request goes into the connection's ``HttpLog`` (so the HTTP view shows it, masked)
and into the ``AuthStep`` it belongs to (request and response, masked: the Auth view shows
documents, never a credential). Redirects are not followed: a flow looks at them itself.
Bodies are read up to ``BODY_CAP``: a hostile server cannot fill the memory.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

import httpx2

from ..base.masking import (
    ISSUED_SECRET_FIELDS,
    header_secret_values,
    mask_form,
    mask_headers,
    mask_oauth_fields,
    mask_url,
    oauth_secret_values,
    remember_secret,
    scrub,
    scrub_value,
)
from ..traffic.http_log import HttpLog
from ..transport.http_util import describe_error, read_bounded
from .model import AuthError, AuthLog, AuthStep

BODY_CAP = 1 << 20  # bytes of a response kept (metadata documents and token responses are small)
SHOWN_TEXT = 4_000  # characters of a non-JSON body kept in a step


@dataclass
class AuthResponse:
    status: int
    reason: str
    headers: httpx2.Headers
    body: bytes  # at most BODY_CAP bytes
    size: int  # the size read
    url: str
    exchange_id: int | None = None

    @property
    def ok(self) -> bool:
        return 200 <= self.status < 300

    @property
    def location(self) -> str | None:
        return self.headers.get("location")

    @property
    def content_type(self) -> str:
        return (self.headers.get("content-type") or "").split(";", 1)[0].strip().lower()

    def json(self) -> Any:
        """The body parsed as JSON, or None when it is not JSON."""
        try:
            return json.loads(self.body.decode("utf-8"))
        except (UnicodeDecodeError, ValueError, RecursionError):
            return None

    def json_object(self) -> dict[str, Any] | None:
        value = self.json()
        return value if isinstance(value, dict) else None

    def text(self, limit: int = SHOWN_TEXT) -> str:
        return self.body[:limit].decode("utf-8", "replace")


def shown_body(body: bytes, content_type: str) -> Any:
    """A body as a step keeps it: parsed JSON or form fields with credentials masked, else text;
    a secret of this process (``remember_secret``) echoed anywhere in it is masked too."""
    text = body.decode("utf-8", "replace")
    try:
        return scrub_value(mask_oauth_fields(json.loads(text)))
    except (ValueError, RecursionError):
        pass
    if content_type == "application/x-www-form-urlencoded" or ("=" in text and " " not in text.strip()):
        return scrub(mask_form(text))[:SHOWN_TEXT]
    return scrub(text[:SHOWN_TEXT])


class AuthHttp:
    def __init__(self, client: httpx2.AsyncClient, log: AuthLog, http_log: HttpLog | None = None) -> None:
        self.client = client
        self.log = log
        self.http_log = http_log

    async def request(
        self,
        method: str,
        url: str,
        *,
        step: AuthStep | None = None,
        headers: dict[str, str] | None = None,
        form: dict[str, str] | None = None,
        json_body: Any = None,
        note: str = "authorization",
        timeout: float | None = 30.0,
    ) -> AuthResponse:
        """Send one request; raises AuthError (and fails ``step``) when it cannot be sent or
        no response comes. Any HTTP status is a response: the caller judges it."""
        sent_headers = {"Accept": "application/json", **(headers or {})}
        # every credential sent is masked wherever it shows up later (an error body quoting the code...)
        remember_secret(
            *header_secret_values(sent_headers), *oauth_secret_values(form), *oauth_secret_values(json_body)
        )
        content: bytes | None = None
        shown: Any = None
        if form is not None:
            content = urlencode(form).encode("ascii")
            sent_headers.setdefault("Content-Type", "application/x-www-form-urlencoded")
            shown = mask_oauth_fields(dict(form))
        elif json_body is not None:
            content = json.dumps(json_body).encode("utf-8")
            sent_headers.setdefault("Content-Type", "application/json")
            shown = mask_oauth_fields(json_body)
        if step is not None:
            step.request = {
                "method": method,
                "url": mask_url(url),
                "headers": mask_headers(sent_headers),
                "body": shown,
            }
        exchange = None
        if self.http_log is not None:
            exchange = self.http_log.begin(method, url, sent_headers, request_size=len(content or b""), note=note)
            if step is not None:
                step.exchange_id = exchange.id
        try:
            request = self.client.build_request(
                method, url, content=content, headers=sent_headers, timeout=httpx2.Timeout(timeout) if timeout else None
            )
            response = await self.client.send(request, stream=True, follow_redirects=False)
        except (httpx2.HTTPError, httpx2.InvalidURL, ValueError, UnicodeEncodeError) as exc:
            why = describe_error(exc, url) if isinstance(exc, httpx2.HTTPError) else f"{exc.__class__.__name__}: {exc}"
            if exchange is not None and self.http_log is not None:
                self.http_log.finish(exchange, why)
            message = f"{method} {mask_url(url)} failed: {why}"
            if step is not None:
                raise self.log.fail(step, message) from None
            raise AuthError(message) from None
        try:
            if exchange is not None and self.http_log is not None:
                self.http_log.response(
                    exchange, response.status_code, response.reason_phrase, list(response.headers.multi_items())
                )
            try:
                body, size = await read_bounded(response, BODY_CAP, BODY_CAP + 1)
            except httpx2.HTTPError as exc:
                why = describe_error(exc, url)
                if exchange is not None and self.http_log is not None:
                    self.http_log.finish(exchange, why)
                message = f"{method} {mask_url(url)}: the response broke off: {why}"
                if step is not None:
                    raise self.log.fail(step, message) from None
                raise AuthError(message) from None
        finally:
            await response.aclose()
        if exchange is not None and self.http_log is not None:
            self.http_log.body(exchange, size)
            self.http_log.finish(
                exchange, None if size <= BODY_CAP else f"body over {BODY_CAP} bytes: the rest was not read"
            )
        result = AuthResponse(
            response.status_code,
            response.reason_phrase,
            response.headers,
            body,
            size,
            url,
            exchange.id if exchange is not None else None,
        )
        if body:
            remember_secret(*oauth_secret_values(result.json(), ISSUED_SECRET_FIELDS))  # masked wherever they turn up
        if step is not None:
            step.response = {
                "status": result.status,
                "reason": result.reason,
                "headers": mask_headers(list(response.headers.multi_items())),
                "body": shown_body(body, result.content_type) if body else None,
            }
        return result
