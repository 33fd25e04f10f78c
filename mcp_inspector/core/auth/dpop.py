"""DPoP (RFC 9449): tokens bound to a key the client holds, through ``joserfc``.

- ``DpopKey``: the client's key pair (ES256 by default), its RFC 7638 thumbprint ``jkt`` (what a
  bound token's ``cnf.jkt`` names) and ``proof(method, url, access_token=, nonce=)``: a fresh
  ``dpop+jwt`` per request (RFC 9449 §4.2: ``jwk`` header with the public key, ``htm``, ``htu``
  without query or fragment, ``iat``, a unique ``jti``, ``ath`` = SHA-256 of the access token
  when one is presented, ``nonce`` when the server gave one). ``request_headers`` gives both
  headers of a resource request (``Authorization: DPoP <token>`` and ``DPoP: <proof>``).
- ``DpopNonces``: server-supplied nonces (``DPoP-Nonce``), one per origin: the authorization
  server (§8) and the resource server (§9) keep separate ones.
- ``wants_dpop`` (the user's ``--dpop``, else ``dpop_signing_alg_values_supported`` in the
  authorization server metadata), ``choose_algorithm``, ``metadata_findings``.
- ``nonce_challenge``: is a response a ``use_dpop_nonce`` challenge to retry with the new nonce
  (400 from a token endpoint with the error in its JSON body, 401 from a resource server with
  it in ``WWW-Authenticate``)?

The private key stays in memory; ``private_jwk`` / ``from_private_jwk`` let a token store keep
it with the tokens bound to it (a secret: stored like a refresh token, never shown).
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
import secrets
import time
import warnings
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from joserfc.errors import JoseError
from joserfc.jwk import ECKey, OKPKey, RSAKey

from .assertions import ALGORITHMS, PrivateKey, check_algorithm, sign
from .model import AuthError, AuthSettings, Finding, ServerAuthInfo

DPOP_TYPE = "dpop+jwt"
NONCE_ERROR = "use_dpop_nonce"
#: The algorithms we sign proofs with, in the order we prefer them.
SUPPORTED_ALGORITHMS: tuple[str, ...] = (
    "ES256",
    "ES384",
    "ES512",
    "EdDSA",
    "PS256",
    "RS256",
    "PS384",
    "RS384",
    "PS512",
    "RS512",
)
_EC_CURVES = {"ES256": "P-256", "ES384": "P-384", "ES512": "P-521"}
_SYMMETRIC = re.compile(r"^HS\d+$", re.I)
_NONCE_CHARS = re.compile(r"^[\x21\x23-\x5b\x5d-\x7e]+$")  # RFC 9449 §8.1: NQCHAR
_NONCE_CHALLENGE = re.compile(r'error\s*=\s*"?use_dpop_nonce"?', re.I)
SPEC = "RFC 9449"


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def access_token_hash(access_token: str) -> str:
    """``ath``: base64url of the SHA-256 of the token's ASCII (RFC 9449 §4.2)."""
    return _b64url(hashlib.sha256(access_token.encode("ascii", "replace")).digest())


def target_uri(url: str) -> str:
    """``htu``: the request URI without its query and fragment (RFC 9449 §4.2)."""
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc, parts.path, "", ""))


class DpopKey:
    """A DPoP key pair; every ``proof`` is a new JWT (fresh ``jti`` and ``iat``)."""

    def __init__(self, key: PrivateKey, alg: str) -> None:
        if alg not in SUPPORTED_ALGORITHMS:
            raise AuthError(f"DPoP algorithm {alg!r} is not one we sign with ({', '.join(SUPPORTED_ALGORITHMS)})")
        if not key.is_private:
            raise AuthError("a DPoP key must be a private key")
        self.key = key
        self.alg = check_algorithm(key, alg)
        self.public_jwk: dict[str, Any] = dict(key.as_dict(private=False))
        for name in ("kid", "use", "key_ops", "alg"):
            self.public_jwk.pop(name, None)
        self.jkt: str = key.thumbprint()

    @classmethod
    def generate(cls, alg: str = "ES256") -> DpopKey:
        """A new key pair for ``alg`` (ES256/384/512 on their curve, RS/PS on RSA 2048, EdDSA on Ed25519)."""
        if alg not in SUPPORTED_ALGORITHMS:
            raise AuthError(f"DPoP algorithm {alg!r} is not one we sign with ({', '.join(SUPPORTED_ALGORITHMS)})")
        key: PrivateKey
        if alg in _EC_CURVES:
            key = ECKey.generate_key(_EC_CURVES[alg])
        elif alg in ALGORITHMS["RSA"]:
            key = RSAKey.generate_key(2048)
        else:
            key = OKPKey.generate_key("Ed25519")
        return cls(key, alg)

    @classmethod
    def from_private_jwk(cls, data: Mapping[str, Any], alg: str | None = None) -> DpopKey:
        """A key kept by ``private_jwk`` (the store's copy); AuthError when it is not one."""
        if not isinstance(data, Mapping):
            raise AuthError("the stored DPoP key is not a JSON object")
        fields = dict(data)
        alg = alg or fields.pop("alg", None) or "ES256"
        classes = {"EC": ECKey, "RSA": RSAKey, "OKP": OKPKey}
        cls_key = classes.get(fields.get("kty"))  # type: ignore[arg-type]  # a missing kty is a None key: .get() then gives None
        if cls_key is None:
            raise AuthError(f"the stored DPoP key has key type {fields.get('kty')!r}; EC, RSA or OKP expected")
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                key = cls_key.import_key(fields)
        except (JoseError, ValueError, TypeError, KeyError) as exc:
            raise AuthError(f"the stored DPoP key could not be read: {exc}") from None
        return cls(key, str(alg))

    def private_jwk(self) -> dict[str, Any]:
        """The private key as a JWK with its ``alg`` (a secret: for the token store only)."""
        return {**self.key.as_dict(private=True), "alg": self.alg}

    def proof(self, method: str, url: str, *, access_token: str | None = None, nonce: str | None = None) -> str:
        """A DPoP proof for one request (RFC 9449 §4.2)."""
        claims: dict[str, Any] = {
            "jti": secrets.token_urlsafe(16),
            "htm": method.upper(),
            "htu": target_uri(url),
            "iat": int(time.time()),
        }
        if access_token is not None:
            claims["ath"] = access_token_hash(access_token)
        if nonce is not None:
            claims["nonce"] = nonce
        return sign(claims, self.key, self.alg, {"typ": DPOP_TYPE, "jwk": self.public_jwk})

    def request_headers(
        self, method: str, url: str, access_token: str, nonces: DpopNonces | None = None
    ) -> dict[str, str]:
        """``Authorization: DPoP <token>`` and a fresh ``DPoP`` proof bound to it (RFC 9449 §7.1),
        with the origin's nonce when ``nonces`` has one."""
        nonce = nonces.get(url) if nonces is not None else None
        return {
            "Authorization": f"DPoP {access_token}",
            "DPoP": self.proof(method, url, access_token=access_token, nonce=nonce),
        }


def _header(headers: Any, name: str) -> str | None:
    """One header's value from httpx Headers, a dict or a list of pairs (case-insensitive)."""
    if headers is None:
        return None
    getter = getattr(headers, "get", None)
    if getter is not None and not isinstance(headers, dict):
        value = getter(name)
        return value if isinstance(value, str) else None
    pairs = headers.items() if isinstance(headers, Mapping) else headers
    lower = name.lower()
    try:
        for key, value in pairs:
            if isinstance(key, str) and key.lower() == lower and isinstance(value, str):
                return value
    except (TypeError, ValueError):
        return None
    return None


def origin(url: str) -> str:
    """``scheme://host:port`` of a URL, lowercased, with the default port written out."""
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    try:
        port = parts.port
    except ValueError:
        port = None
    port = port or {"http": 80, "https": 443}.get(scheme)
    return f"{scheme}://{(parts.hostname or '').lower()}:{port}"


class DpopNonces:
    """The last ``DPoP-Nonce`` each origin gave (RFC 9449 §8, §9), at most ``MAX_ORIGINS``."""

    MAX_ORIGINS = 64
    MAX_NONCE = 1_024  # characters; a hostile server cannot make every proof huge

    def __init__(self) -> None:
        self._nonces: dict[str, str] = {}

    def get(self, url: str) -> str | None:
        return self._nonces.get(origin(url))

    def remember(self, url: str, headers: Any) -> None:
        """Keep the response's ``DPoP-Nonce`` for its origin (an invalid one is ignored)."""
        value = _header(headers, "dpop-nonce")
        if value is None:
            return
        value = value.strip()
        if not value or len(value) > self.MAX_NONCE or not _NONCE_CHARS.match(value):
            return
        key = origin(url)
        self._nonces.pop(key, None)
        if len(self._nonces) >= self.MAX_ORIGINS:
            self._nonces.pop(next(iter(self._nonces)))
        self._nonces[key] = value

    def clear(self) -> None:
        self._nonces.clear()


def _algorithms(info: ServerAuthInfo) -> list[str] | None:
    values = info.metadata.get("dpop_signing_alg_values_supported") if isinstance(info.metadata, dict) else None
    if not isinstance(values, list):
        return None
    return [value for value in values if isinstance(value, str)]


def wants_dpop(info: ServerAuthInfo, settings: AuthSettings) -> bool:
    """DPoP when the user asked (``--dpop``), else when the authorization server advertises an
    algorithm we sign with (RFC 9449 §5.1 ``dpop_signing_alg_values_supported``)."""
    if settings.dpop is not None:
        return bool(settings.dpop)
    algorithms = _algorithms(info)
    return bool(algorithms) and any(alg in SUPPORTED_ALGORITHMS for alg in algorithms or ())


def choose_algorithm(info: ServerAuthInfo) -> str:
    """The proof algorithm: our first preference the server lists, else ES256."""
    listed = _algorithms(info) or []
    for alg in SUPPORTED_ALGORITHMS:
        if alg in listed:
            return alg
    return "ES256"


def metadata_findings(info: ServerAuthInfo) -> list[Finding]:
    """What RFC 9449 §5.1 says of ``dpop_signing_alg_values_supported``, when the server has it."""
    if not isinstance(info.metadata, dict) or "dpop_signing_alg_values_supported" not in info.metadata:
        return []
    spec = f"{SPEC} §5.1"
    values = info.metadata["dpop_signing_alg_values_supported"]
    if not isinstance(values, list) or not values or not all(isinstance(value, str) for value in values):
        return [
            Finding(False, "dpop_signing_alg_values_supported must be a non-empty list of JWS algorithm names", spec)
        ]
    findings = []
    bad = [value for value in values if value.lower() == "none" or _SYMMETRIC.match(value)]
    if bad:
        findings.append(
            Finding(
                False,
                f"dpop_signing_alg_values_supported lists {', '.join(bad)}: a proof must use an "
                "asymmetric algorithm, never 'none' or a MAC",
                f"{SPEC} §4.2, §11.6",
            )
        )
    usable = [value for value in values if value in SUPPORTED_ALGORITHMS]
    if usable:
        findings.append(
            Finding(True, f"DPoP supported with {', '.join(values)}; proofs use {choose_algorithm(info)}", spec)
        )
    else:
        findings.append(
            Finding(
                False, f"dpop_signing_alg_values_supported lists no algorithm we sign with ({', '.join(values)})", spec
            )
        )
    return findings


def _error_code(body: Any) -> str | None:
    if isinstance(body, (bytes, bytearray)):
        body = bytes(body[:65_536]).decode("utf-8", "replace")
    if isinstance(body, str):
        try:
            body = json.loads(body)
        except (ValueError, RecursionError):
            return None
    if isinstance(body, dict) and isinstance(body.get("error"), str):
        return body["error"]
    return None


def nonce_challenge(status: int, headers: Any, body: Any = None) -> bool:
    """A ``use_dpop_nonce`` challenge that carries a nonce to retry with: 400 or 401 with the
    error in ``WWW-Authenticate`` (resource server, §9) or in the JSON ``body`` (token endpoint,
    §8; bytes, text or parsed), and a ``DPoP-Nonce`` header. Retry once with a new proof."""
    if status not in (400, 401):
        return False
    nonce = _header(headers, "dpop-nonce")
    if not nonce or not nonce.strip():
        return False
    challenge = _header(headers, "www-authenticate") or ""
    return bool(_NONCE_CHALLENGE.search(challenge)) or _error_code(body) == NONCE_ERROR
