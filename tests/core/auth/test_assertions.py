"""assertions: private_key_jwt client assertions (verified with the public key, as an
authorization server does), private keys read from PEM with clear errors, JWT claims decoded
for the Auth view without their signature, and what an assertion's aud/exp tell the user."""

from __future__ import annotations

import json
import time

import pytest
from joserfc import jwt
from joserfc.jwk import ECKey, OKPKey, RSAKey

from mcp_inspector.core.auth.assertions import (
    CLIENT_ASSERTION_TYPE,
    assertion_findings,
    client_assertion,
    decode_claims,
    default_algorithm,
    load_private_key,
)
from mcp_inspector.core.auth.dpop import DpopKey
from mcp_inspector.core.auth.model import AuthError, AuthSettings, ClientInfo

ISSUER = "https://as.example.com"
pytestmark = pytest.mark.filterwarnings("ignore::joserfc.errors.SecurityWarning")  # EdDSA verified here


def pem(key) -> str:
    return key.as_pem(private=True).decode("ascii")


def verify(token: str, public, alg: str) -> jwt.Token:
    return jwt.decode(token, public, algorithms=[alg])


def test_client_assertion_es256_verifies_with_the_public_key() -> None:
    key = ECKey.generate_key("P-256")
    client = ClientInfo("my-client", token_auth_method="private_key_jwt")
    fields = client_assertion(client, AuthSettings(private_key_pem=pem(key)), ISSUER)
    assert fields["client_assertion_type"] == CLIENT_ASSERTION_TYPE
    token = verify(fields["client_assertion"], ECKey.import_key(key.as_dict(private=False)), "ES256")
    assert token.header["alg"] == "ES256"
    claims = token.claims
    assert claims["iss"] == claims["sub"] == "my-client"
    assert claims["aud"] == ISSUER
    assert isinstance(claims["jti"], str) and len(claims["jti"]) >= 16
    assert claims["iat"] <= time.time() + 1
    assert 0 < claims["exp"] - claims["iat"] <= 300  # short-lived


def test_each_assertion_has_its_own_jti() -> None:
    settings = AuthSettings(private_key_pem=pem(ECKey.generate_key("P-256")))
    client = ClientInfo("c")
    jtis = {
        decode_claims(client_assertion(client, settings, ISSUER)["client_assertion"])["claims"]["jti"] for _ in range(5)
    }
    assert len(jtis) == 5


@pytest.mark.parametrize(
    "make, expected",
    [
        (lambda: RSAKey.generate_key(2048), "RS256"),
        (lambda: ECKey.generate_key("P-256"), "ES256"),
        (lambda: ECKey.generate_key("P-384"), "ES384"),
        (lambda: ECKey.generate_key("P-521"), "ES512"),
        (lambda: OKPKey.generate_key("Ed25519"), "EdDSA"),
    ],
)
def test_the_algorithm_follows_the_key(make, expected) -> None:
    key = make()
    assert default_algorithm(load_private_key(pem(key))) == expected
    fields = client_assertion(ClientInfo("c"), AuthSettings(private_key_pem=pem(key)), ISSUER)
    public = type(key).import_key(key.as_dict(private=False))
    assert verify(fields["client_assertion"], public, expected).claims["iss"] == "c"


def test_a_given_algorithm_is_used() -> None:
    key = RSAKey.generate_key(2048)
    fields = client_assertion(
        ClientInfo("c"), AuthSettings(private_key_pem=pem(key), signing_algorithm="PS256"), ISSUER
    )
    assert decode_claims(fields["client_assertion"])["header"]["alg"] == "PS256"
    verify(fields["client_assertion"], RSAKey.import_key(key.as_dict(private=False)), "PS256")


def test_an_algorithm_that_does_not_fit_the_key_says_which_would() -> None:
    settings = AuthSettings(private_key_pem=pem(RSAKey.generate_key(2048)), signing_algorithm="ES256")
    with pytest.raises(AuthError) as caught:
        client_assertion(ClientInfo("c"), settings, ISSUER)
    assert "'ES256' does not fit the RSA key" in str(caught.value) and "RS256" in str(caught.value)
    settings = AuthSettings(private_key_pem=pem(ECKey.generate_key("P-384")), signing_algorithm="ES256")
    with pytest.raises(AuthError, match="ES384"):
        client_assertion(ClientInfo("c"), settings, ISSUER)


SECRET_BODY = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7"


@pytest.mark.parametrize(
    "text, message",
    [
        ("", "is empty"),
        ("just some words", "not in PEM form"),
        (f"-----BEGIN PRIVATE KEY-----\n{SECRET_BODY}\n-----END PRIVATE KEY-----\n", "could not be read"),
        (f"-----BEGIN ENCRYPTED PRIVATE KEY-----\n{SECRET_BODY}\n-----END ENCRYPTED PRIVATE KEY-----\n", "encrypted"),
        ("-----BEGIN" + "A" * 70_000, "not a PEM private key"),
    ],
)
def test_a_bad_key_is_a_clear_error_without_the_key(text, message) -> None:
    with pytest.raises(AuthError) as caught:
        client_assertion(
            ClientInfo("c"), AuthSettings(private_key_pem=text or None), ISSUER
        ) if text else load_private_key(text, what="the client key (--client-key)")
    assert message in str(caught.value)
    assert SECRET_BODY not in str(caught.value)
    assert "Traceback" not in str(caught.value)


def test_a_public_key_cannot_sign() -> None:
    public = ECKey.generate_key("P-256").as_pem(private=False).decode()
    with pytest.raises(AuthError, match="public key"):
        load_private_key(public)


def test_no_key_at_all() -> None:
    with pytest.raises(AuthError, match="--client-key"):
        client_assertion(ClientInfo("c"), AuthSettings(), ISSUER)


def test_decode_claims_gives_header_and_claims_never_the_signature() -> None:
    key = ECKey.generate_key("P-256")
    token = jwt.encode({"alg": "ES256", "typ": "at+jwt"}, {"sub": "u", "scope": "a b", "cnf": {"jkt": "x"}}, key)
    decoded = decode_claims(token)
    assert decoded == {
        "header": {"alg": "ES256", "typ": "at+jwt"},
        "claims": {"sub": "u", "scope": "a b", "cnf": {"jkt": "x"}},
    }
    assert token.split(".")[2] not in json.dumps(decoded)


def test_decode_claims_reads_a_large_header() -> None:
    # a DPoP proof with an RSA key in its jwk header is over joserfc's default 512-byte header limit
    proof = DpopKey.generate("RS256").proof("POST", "https://as.example.com/token")
    assert decode_claims(proof)["header"]["typ"] == "dpop+jwt"


@pytest.mark.parametrize(
    "token",
    [
        "opaque-token-abc123",
        "a.b.c",
        "eyJhbGciOiJub25lIn0.bm90IGpzb24.",  # claims are not JSON
        "eyJhbGciOiJub25lIn0.WzEsMl0.",  # claims are a list
        "eyJ0eXAiOiJKV1QifQ.e30.sig",  # header without alg
        "eyJhbGciOiJSU0EtT0FFUCIsImVuYyI6IkEyNTZHQ00ifQ.a.b.c.d",  # a JWE
        "",
        "." * 2,
        "x" * 70_000 + ".e30.sig",
    ],
)
def test_decode_claims_is_none_for_what_is_not_a_jwt(token) -> None:
    assert decode_claims(token) is None


def test_decode_claims_of_an_unsigned_jwt() -> None:
    assert decode_claims("eyJhbGciOiJub25lIn0.eyJhIjoxfQ.") == {"header": {"alg": "none"}, "claims": {"a": 1}}


def test_assertion_findings_say_why_it_may_be_refused() -> None:
    key = ECKey.generate_key("P-256")
    now = int(time.time())
    good = jwt.encode({"alg": "ES256"}, {"aud": ISSUER + "/", "exp": now + 300}, key)
    decoded, findings = assertion_findings(good, audience=ISSUER, what="the JWT", spec="X")
    assert decoded["claims"]["aud"] == ISSUER + "/"
    assert all(f.ok for f in findings) and len(findings) == 2

    wrong = jwt.encode({"alg": "ES256"}, {"aud": ["https://wrong.example"], "exp": now - 60}, key)
    _, findings = assertion_findings(wrong, audience=ISSUER, what="the JWT", spec="X")
    texts = [f.text for f in findings if not f.ok]
    assert any("https://wrong.example is not the authorization server" in text for text in texts)
    assert any("expired" in text for text in texts)

    _, findings = assertion_findings("opaque", audience=ISSUER, what="the JWT", spec="X")
    assert [f.ok for f in findings] == [False] and "not a JWT" in findings[0].text
