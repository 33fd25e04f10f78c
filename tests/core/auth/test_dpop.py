"""dpop: proofs as RFC 9449 §4 defines them (verified with the key in their own header, as the
conformance suite's servers do), the ath of RFC 9449's example, thumbprints that bind, nonces
kept per origin, use_dpop_nonce challenges recognised, and when DPoP is used at all."""

from __future__ import annotations

import time

import httpx2
import pytest
from joserfc import jwk, jws, jwt

from mcp_inspector.core.auth.assertions import decode_claims
from mcp_inspector.core.auth.dpop import (
    DpopKey,
    DpopNonces,
    access_token_hash,
    choose_algorithm,
    metadata_findings,
    nonce_challenge,
    wants_dpop,
)
from mcp_inspector.core.auth.model import AuthError, AuthSettings, ServerAuthInfo

pytestmark = pytest.mark.filterwarnings("ignore::joserfc.errors.SecurityWarning")  # EdDSA proofs verified here
ASYMMETRIC = ["ES256", "ES384", "ES512", "RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "EdDSA"]


def verify_proof(proof: str) -> jwt.Token:
    """What an RFC 9449 §4.3 verifier does with the proof's own header."""
    header = decode_claims(proof)["header"]
    assert header["typ"] == "dpop+jwt"
    assert header["alg"] in ASYMMETRIC
    assert "d" not in header["jwk"] and "p" not in header["jwk"]  # never the private key
    registry = jws.JWSRegistry(algorithms=[header["alg"]])
    registry.max_header_length = 4096  # an RSA key in the header is over joserfc's default 512 bytes
    return jwt.decode(proof, jwk.import_key(header["jwk"], header["jwk"]["kty"]), registry=registry)


@pytest.mark.parametrize("alg", ["ES256", "ES384", "ES512", "RS256", "PS256", "EdDSA"])
def test_a_proof_verifies_with_its_own_jwk(alg) -> None:
    key = DpopKey.generate(alg)
    token = verify_proof(key.proof("post", "https://mcp.example.com/mcp?session=1#frag"))
    assert token.header["alg"] == alg
    claims = token.claims
    assert claims["htm"] == "POST"
    assert claims["htu"] == "https://mcp.example.com/mcp"  # no query, no fragment
    assert abs(claims["iat"] - time.time()) < 300
    assert "ath" not in claims and "nonce" not in claims
    assert jwk.import_key(token.header["jwk"], token.header["jwk"]["kty"]).thumbprint() == key.jkt


def test_ath_is_rfc_9449s_example() -> None:
    # RFC 9449 §7.1: the access token of the example and its ath
    assert (
        access_token_hash("Kz~8mXK1EalYznwH-LC-1fBAo.4Ljp~zsPE_NeO.gxU")
        == "fUHyO2r2Z3DZ53EsNrWBb0xWXoaNy59IiKCAqksmQEo"
    )


def test_a_proof_for_a_token_and_a_nonce() -> None:
    key = DpopKey.generate()
    claims = verify_proof(key.proof("GET", "http://127.0.0.1:9/mcp", access_token="tok-123", nonce="n-1")).claims
    assert claims["ath"] == access_token_hash("tok-123")
    assert claims["nonce"] == "n-1"
    assert claims["htm"] == "GET"


def test_every_proof_is_fresh() -> None:
    key = DpopKey.generate()
    jtis = {verify_proof(key.proof("POST", "https://as.example.com/token")).claims["jti"] for _ in range(20)}
    assert len(jtis) == 20


def test_jkt_is_the_rfc_7638_thumbprint_of_the_public_key() -> None:
    key = DpopKey.generate("ES256")
    public = jwk.ECKey.import_key(key.public_jwk)
    assert not public.is_private
    assert key.jkt == public.thumbprint()
    assert set(key.public_jwk) == {"kty", "crv", "x", "y"}


def test_request_headers_bind_the_token() -> None:
    key = DpopKey.generate()
    nonces = DpopNonces()
    nonces.remember("https://mcp.example.com/other", {"DPoP-Nonce": "rs-nonce"})
    headers = key.request_headers("POST", "https://mcp.example.com/mcp", "the-token", nonces)
    assert headers["Authorization"] == "DPoP the-token"
    claims = verify_proof(headers["DPoP"]).claims
    assert claims["ath"] == access_token_hash("the-token") and claims["nonce"] == "rs-nonce"


def test_the_private_key_round_trips_for_the_store() -> None:
    key = DpopKey.generate("ES384")
    again = DpopKey.from_private_jwk(key.private_jwk())
    assert again.jkt == key.jkt and again.alg == "ES384"
    verify_proof(again.proof("POST", "https://as.example.com/token"))


@pytest.mark.parametrize("data", [{"kty": "oct", "k": "c2VjcmV0"}, {"kty": "EC", "crv": "P-256"}, "not a dict", {}])
def test_a_broken_stored_key_is_a_clear_error(data) -> None:
    with pytest.raises(AuthError, match="stored DPoP key"):
        DpopKey.from_private_jwk(data)  # type: ignore[arg-type]


def test_unknown_algorithms_are_refused() -> None:
    with pytest.raises(AuthError, match="HS256"):
        DpopKey.generate("HS256")
    with pytest.raises(AuthError, match="none"):
        DpopKey.generate("none")


def test_nonces_are_kept_per_origin() -> None:
    nonces = DpopNonces()
    nonces.remember("https://AS.example.com:443/token", httpx2.Headers({"DPoP-Nonce": "as-1"}))
    nonces.remember("https://mcp.example.com/mcp", [("dpop-nonce", "rs-1")])
    assert nonces.get("https://as.example.com/other") == "as-1"
    assert nonces.get("https://mcp.example.com:443/mcp") == "rs-1"
    assert nonces.get("http://as.example.com/token") is None  # another scheme, another origin
    nonces.remember("https://as.example.com/token", {"dpop-nonce": "as-2"})
    assert nonces.get("https://as.example.com/token") == "as-2"
    nonces.remember("https://as.example.com/token", {"content-type": "application/json"})  # no nonce: kept
    assert nonces.get("https://as.example.com/token") == "as-2"


@pytest.mark.parametrize("value", ['with"quote', "with space", "x" * 2000, "", "tab\there"])
def test_an_invalid_nonce_is_ignored(value) -> None:
    nonces = DpopNonces()
    nonces.remember("https://as.example.com/", {"DPoP-Nonce": value})
    assert nonces.get("https://as.example.com/") is None


def test_nonces_of_many_origins_are_bounded() -> None:
    nonces = DpopNonces()
    for port in range(1000, 1200):
        nonces.remember(f"http://127.0.0.1:{port}/", {"DPoP-Nonce": f"n{port}"})
    assert nonces.get("http://127.0.0.1:1199/") == "n1199"
    assert nonces.get("http://127.0.0.1:1000/") is None
    assert len(nonces._nonces) == DpopNonces.MAX_ORIGINS


def test_nonce_challenges() -> None:
    rs = httpx2.Headers(
        {"WWW-Authenticate": 'DPoP error="use_dpop_nonce", resource_metadata="https://x/prm"', "DPoP-Nonce": "n"}
    )
    assert nonce_challenge(401, rs)
    assert nonce_challenge(400, {"DPoP-Nonce": "n"}, b'{"error": "use_dpop_nonce", "error_description": "x"}')
    assert nonce_challenge(400, {"DPoP-Nonce": "n"}, {"error": "use_dpop_nonce"})
    assert nonce_challenge(400, {"DPoP-Nonce": "n"}, '{"error":"use_dpop_nonce"}')
    # not a challenge: another error, no nonce to retry with, another status, a body that is not JSON
    assert not nonce_challenge(400, {"DPoP-Nonce": "n"}, b'{"error": "invalid_dpop_proof"}')
    assert not nonce_challenge(401, {"WWW-Authenticate": 'DPoP error="use_dpop_nonce"'})
    assert not nonce_challenge(403, rs)
    assert not nonce_challenge(400, {"DPoP-Nonce": "n"}, b"<html>use_dpop_nonce</html>")
    assert not nonce_challenge(401, {"WWW-Authenticate": 'DPoP error="invalid_token"', "DPoP-Nonce": "n"})


def info(**metadata) -> ServerAuthInfo:
    return ServerAuthInfo("https://mcp.example.com/mcp", issuer="https://as.example.com", metadata=metadata)


def test_dpop_is_used_when_the_server_supports_it_or_the_user_says() -> None:
    assert wants_dpop(info(dpop_signing_alg_values_supported=["ES256"]), AuthSettings())
    assert not wants_dpop(info(), AuthSettings())
    assert not wants_dpop(info(dpop_signing_alg_values_supported=[]), AuthSettings())
    assert not wants_dpop(info(dpop_signing_alg_values_supported=["HS256"]), AuthSettings())
    assert not wants_dpop(info(dpop_signing_alg_values_supported="ES256"), AuthSettings())
    assert wants_dpop(info(), AuthSettings(dpop=True))
    assert not wants_dpop(info(dpop_signing_alg_values_supported=["ES256"]), AuthSettings(dpop=False))


def test_the_algorithm_is_one_the_server_lists() -> None:
    assert choose_algorithm(info(dpop_signing_alg_values_supported=["RS256", "ES256"])) == "ES256"
    assert choose_algorithm(info(dpop_signing_alg_values_supported=["PS256"])) == "PS256"
    assert choose_algorithm(info()) == "ES256"


def test_metadata_findings() -> None:
    assert metadata_findings(info()) == []
    ok = metadata_findings(info(dpop_signing_alg_values_supported=["ES256"]))
    assert [f.ok for f in ok] == [True]
    bad = metadata_findings(info(dpop_signing_alg_values_supported=["ES256", "none", "HS256"]))
    assert any(not f.ok and "none" in f.text and "HS256" in f.text for f in bad)
    assert [f.ok for f in metadata_findings(info(dpop_signing_alg_values_supported=[]))] == [False]
