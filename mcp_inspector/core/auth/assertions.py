"""JWTs the OAuth client signs or shows, through ``joserfc`` (no cryptography of our own).

- ``client_assertion``: ``private_key_jwt`` client authentication (RFC 7523 §2.2, OpenID
  Connect Core §9): a short-lived JWT with ``iss`` = ``sub`` = the client id and ``aud`` = the
  authorization server, signed with the user's private key (``--client-key``).
- ``load_private_key`` / ``default_algorithm``: a PEM private key and the JWS algorithm that
  goes with it (RSA -> RS256, EC P-256/384/521 -> ES256/384/512, Ed25519 -> EdDSA).
- ``decode_claims``: the header and claims of a JWT, NOT verified, for the Auth view ("token
  claims decoded where they are JWTs"); never the signature, so what it returns cannot be
  replayed. ``assertion_findings`` compares an assertion's claims with what the authorization
  server will expect (audience, expiry), for the steps that send one.

A bad key or algorithm is an ``AuthError`` saying what is wrong, never a traceback.
"""

from __future__ import annotations

import json
import secrets
import time
import warnings
from typing import Any

from joserfc import jws, jwt
from joserfc.errors import JoseError
from joserfc.jwk import ECKey, OKPKey, RSAKey

from ..transport.http_util import printable
from .model import AuthError, AuthSettings, ClientInfo, Finding

CLIENT_ASSERTION_TYPE = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
JWT_BEARER_GRANT = "urn:ietf:params:oauth:grant-type:jwt-bearer"
ASSERTION_LIFETIME = 60  # seconds: a client assertion is used once, right away (RFC 7523 §3 "exp")

PrivateKey = RSAKey | ECKey | OKPKey

#: The JWS algorithms each key type can sign with (joserfc's names).
ALGORITHMS: dict[str, tuple[str, ...]] = {
    "RSA": ("RS256", "RS384", "RS512", "PS256", "PS384", "PS512"),
    "EC": ("ES256", "ES384", "ES512", "ES256K"),
    "OKP": ("EdDSA", "Ed25519"),
}
_EC_DEFAULTS = {"P-256": "ES256", "P-384": "ES384", "P-521": "ES512", "secp256k1": "ES256K"}
_EC_CURVES = {"ES256": "P-256", "ES384": "P-384", "ES512": "P-521", "ES256K": "secp256k1"}
MAX_PEM = 64 * 1024  # a private key in PEM is a few kilobytes
MAX_TOKEN = 64 * 1024  # characters of a token decode_claims looks at

#: For reading (never verifying) JWTs: joserfc's default registry refuses headers over 512
#: bytes, and a DPoP proof with an RSA key in its ``jwk`` header is larger.
_READER = jws.JWSRegistry(strict_check_header=False)
_READER.max_header_length = 16 * 1024


def load_private_key(pem: str, *, what: str = "the private key") -> PrivateKey:
    """A private key (PKCS#8, PKCS#1 or SEC1 PEM, unencrypted) as a joserfc key."""
    if not isinstance(pem, str) or not pem.strip():
        raise AuthError(f"{what} is empty")
    if len(pem) > MAX_PEM:
        raise AuthError(f"{what} is {len(pem)} characters long: not a PEM private key")
    if "-----BEGIN" not in pem:
        raise AuthError(f"{what} is not in PEM form (no '-----BEGIN ... PRIVATE KEY-----' line)")
    if "ENCRYPTED" in pem:
        raise AuthError(
            f"{what} is encrypted with a passphrase; give an unencrypted PEM (e.g. openssl pkey -in KEY -out PLAIN)"
        )
    for cls in (ECKey, RSAKey, OKPKey):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                key = cls.import_key(pem)
        except (JoseError, ValueError, TypeError):
            continue
        if not key.is_private:
            raise AuthError(f"{what} is a public key; a private key is needed to sign")
        return key
    raise AuthError(f"{what} could not be read: not an RSA, EC or Ed25519 private key in PEM form")


def default_algorithm(key: PrivateKey) -> str:
    """The JWS algorithm a key signs with when none is given."""
    if isinstance(key, RSAKey):
        return "RS256"
    if isinstance(key, ECKey):
        curve = key.curve_name
        if curve not in _EC_DEFAULTS:
            raise AuthError(f"the EC key's curve {curve} has no JWS algorithm")
        return _EC_DEFAULTS[curve]
    return "EdDSA"


def check_algorithm(key: PrivateKey, alg: str) -> str:
    """``alg`` if ``key`` can sign with it, else an AuthError that says which would do."""
    usable = ALGORITHMS.get(key.key_type, ())
    if isinstance(key, ECKey):
        usable = tuple(name for name in usable if _EC_CURVES.get(name) == key.curve_name)
    elif isinstance(key, OKPKey) and key.curve_name != "Ed25519":
        usable = ()
    if alg not in usable:
        kind = f"{key.key_type} {key.curve_name}" if isinstance(key, (ECKey, OKPKey)) else key.key_type
        hint = f"; it signs with {', '.join(usable)}" if usable else ""
        raise AuthError(f"the signing algorithm {alg!r} does not fit the {kind} key{hint}")
    return alg


def sign(claims: dict[str, Any], key: PrivateKey, alg: str, header: dict[str, Any] | None = None) -> str:
    """A compact JWS of ``claims`` (a JWT), signed with ``key``."""
    protected = {"alg": alg, **(header or {})}
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # joserfc warns on EdDSA (RFC 9864 prefers Ed25519) and small keys
            return jwt.encode(protected, claims, key, algorithms=[alg])
    except (JoseError, ValueError, TypeError) as exc:
        raise AuthError(f"signing with {alg} failed: {exc}") from None


def client_assertion(client: ClientInfo, settings: AuthSettings, audience: str) -> dict[str, str]:
    """The form fields of ``private_key_jwt`` client authentication (RFC 7523 §2.2).

    ``audience`` is the authorization server's issuer identifier (RFC 7523bis; the conformance
    suite accepts it with or without a trailing slash), not its token endpoint."""
    if not settings.private_key_pem:
        raise AuthError("private_key_jwt needs a private key (--client-key FILE)")
    key = load_private_key(settings.private_key_pem, what="the client key (--client-key)")
    alg = check_algorithm(key, settings.signing_algorithm or default_algorithm(key))
    now = int(time.time())
    claims = {
        "iss": client.client_id,
        "sub": client.client_id,
        "aud": audience,
        "jti": secrets.token_urlsafe(16),
        "iat": now,
        "exp": now + ASSERTION_LIFETIME,
    }
    return {"client_assertion_type": CLIENT_ASSERTION_TYPE, "client_assertion": sign(claims, key, alg, {"typ": "JWT"})}


def decode_claims(token: str) -> dict[str, Any] | None:
    """``{"header": {...}, "claims": {...}}`` of a JWT (a JWS in compact form), NOT verified;
    None when ``token`` is not one (an opaque token, a JWE, garbage). No signature."""
    if not isinstance(token, str) or len(token) > MAX_TOKEN or token.count(".") != 2:
        return None
    try:
        compact = jws.extract_compact(token.strip().encode("ascii"), registry=_READER)
        header = compact.headers()
        claims = json.loads(compact.payload.decode("utf-8"))
    except (JoseError, ValueError, UnicodeError, RecursionError, TypeError):
        return None
    if not isinstance(header, dict) or not isinstance(claims, dict) or not isinstance(header.get("alg"), str):
        return None
    return {"header": dict(header), "claims": claims}


def _audiences(claims: dict[str, Any]) -> list[str]:
    aud = claims.get("aud")
    if isinstance(aud, str):
        return [aud]
    return [item for item in aud if isinstance(item, str)] if isinstance(aud, list) else []


def same_issuer(a: str, b: str) -> bool:
    """Issuer identifiers compared as the suite's servers do: a trailing slash does not count."""
    return a.rstrip("/") == b.rstrip("/")


def assertion_findings(
    token: str,
    *,
    audience: str | None,
    what: str,
    spec: str,
    audience_name: str = "the authorization server",
    now: float | None = None,
) -> tuple[dict[str, Any] | None, list[Finding]]:
    """The decoded header and claims of an assertion the client is about to send, and what
    the receiving server will check in it: ``aud`` (``audience``: its issuer, or the client id
    an ID token is for) and ``exp``. The client sends it anyway (the server judges); the
    findings tell the user why it may be refused."""
    decoded = decode_claims(token)
    if decoded is None:
        return None, [Finding(False, f"{what} is not a JWT (three base64url parts, a JSON header and claims)", spec)]
    claims = decoded["claims"]
    findings: list[Finding] = []
    if audience is not None:
        auds = _audiences(claims)
        if any(same_issuer(aud, audience) for aud in auds):
            findings.append(Finding(True, f"{what}: aud is {audience_name} ({audience})", spec))
        else:
            findings.append(
                Finding(
                    False,
                    f"{what}: aud {printable(', '.join(auds))[:200] or 'missing'} is not {audience_name} "
                    f"({audience}); it will likely be refused",
                    spec,
                )
            )
    exp = claims.get("exp")
    moment = time.time() if now is None else now
    if isinstance(exp, (int, float)) and not isinstance(exp, bool):
        if exp <= moment:
            ago = int(moment - exp)
            findings.append(
                Finding(False, f"{what} expired {ago} s ago (exp {int(exp)}); it will likely be refused", spec)
            )
        else:
            findings.append(Finding(True, f"{what} is valid for {int(exp - moment)} s more", spec))
    else:
        findings.append(Finding(False, f"{what} has no exp claim", spec))
    return decoded, findings
