"""What the two HTTP transports share: the URL and the credentials that may go with it, the
client (the caller's, or one made at start and closed with the transport), the timeouts, the
negotiated protocol version, and ``emit``, which masks the user's secrets in every note and
undelivered reason (an error page may quote our request, token included).

``StreamableHttpTransport`` (streamable_http.py) and ``LegacySseTransport`` (legacy_sse.py)
derive from it and add their own state after ``super().__init__``.
"""

from __future__ import annotations

import anyio
import anyio.abc
import httpx2

from ..base.framing import MAX_LINE_BYTES
from ..base.masking import mask_url
from ..traffic.http_log import HttpLog
from .base import Note, Sink, Transport, TransportEvent, Undelivered
from .credentials import CredentialPolicy
from .http_util import AuthHook, LazyEvent, check_url, make_client, redact


class HttpTransportBase(Transport):
    """The state and the few methods both HTTP transports have in common."""

    def __init__(
        self,
        url: str,
        *,
        headers: dict[str, str] | None = None,
        client: httpx2.AsyncClient | None = None,
        verify: bool = True,
        connect_timeout: float = 10.0,
        read_timeout: float | None = 300.0,
        max_frame_bytes: int = MAX_LINE_BYTES,
        http_log: HttpLog | None = None,
        auth: AuthHook | None = None,
        credentials: CredentialPolicy | None = None,
    ) -> None:
        self.url = check_url(url)
        self.auth = auth  # the OAuth client: credentials on every request, 401/403 answered (http_util)
        self.user_headers = {str(k): str(v) for k, v in (headers or {}).items()}
        #: what may go where: the user's headers, the token and the session id only to the URL's origin
        self.credentials = credentials or CredentialPolicy(self.url, self.user_headers)
        self._secrets = self.credentials.secrets  # masked in server text we quote
        self.verify = verify
        self.connect_timeout = connect_timeout
        self.read_timeout = read_timeout
        self.max_frame_bytes = max_frame_bytes
        self.http_log = http_log
        self.client = client
        self.owns_client = client is None  # HttpTransport clears it: its client is shared across a fallback
        self.protocol_version: str | None = None
        self._sink: Sink | None = None
        self._tg: anyio.abc.TaskGroup | None = None
        self._closing = False
        self._closed = False
        self._closed_event = LazyEvent()
        self.emit_closed = True  # HttpTransport turns it off when it swaps this transport out
        self._barrier: anyio.Event | None = None  # the last notification's POST got its answer
        self._tasks: set[anyio.CancelScope] = set()
        self._side_posts = 0  # notifications and responses sent and not yet answered
        self._side_room = LazyEvent()  # set when _side_posts drops under the transport's cap

    @property
    def closing(self) -> bool:
        """Whether ``close`` has begun."""
        return self._closing

    @property
    def description(self) -> str:
        return mask_url(self.url)

    def set_protocol_version(self, version: str | None) -> None:
        self.protocol_version = version

    def _begin(self, task_group: anyio.abc.TaskGroup, sink: Sink) -> httpx2.AsyncClient:
        """The first steps of ``start``: remember where events go, make the client if none was given."""
        self._tg = task_group
        self._sink = sink
        if self.client is None:
            self.client = make_client(self.verify, self.connect_timeout, self.read_timeout)
        return self.client

    def emit(self, event: TransportEvent) -> None:
        if self._sink is not None and not self._closed:
            if self._secrets:  # an error page may quote our request, token included
                if isinstance(event, Note):
                    event.text = redact(event.text, self._secrets)
                elif isinstance(event, Undelivered):
                    event.reason = redact(event.reason, self._secrets)
            self._sink(event)
