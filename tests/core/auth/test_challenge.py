"""WWW-Authenticate parsing (RFC 9110 §11.6.1): several challenges and headers, token68,
quoted strings with escapes, lenient real-world forms, and hostile input that must not raise."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from mcp_inspector.core.auth.challenge import (
    MAX_CHALLENGES,
    Challenge,
    auth_challenge,
    insufficient_scope,
    parse_www_authenticate,
)


def test_mcp_401_challenge():
    [c] = parse_www_authenticate(
        'Bearer resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource",\n'
        '                         scope="files:read"'
    )
    assert c.scheme == "Bearer"
    assert c.resource_metadata == "https://mcp.example.com/.well-known/oauth-protected-resource"
    assert c.scope == "files:read" and c.scopes == ["files:read"]
    assert c.error is None


def test_403_insufficient_scope():
    header = (
        'Bearer error="insufficient_scope", scope="files:read files:write user:profile", '
        'resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource", '
        'error_description="Additional file write permission required"'
    )
    challenges = parse_www_authenticate(header)
    c = insufficient_scope(403, challenges)
    assert c is not None and c.error == "insufficient_scope"
    assert c.scopes == ["files:read", "files:write", "user:profile"]
    assert c.error_description == "Additional file write permission required"
    assert insufficient_scope(401, challenges) is None
    assert insufficient_scope(403, parse_www_authenticate('Bearer error="invalid_token"')) is None
    assert insufficient_scope(403, parse_www_authenticate('Basic error="insufficient_scope"')) is None


def test_several_challenges_in_one_header_and_token68():
    header = (
        'Newauth realm="apps", type=1, title="Login to \\"apps\\"", Basic realm="simple", Basic dXNlcjpwYXNz==, Bearer'
    )
    got = parse_www_authenticate(header)
    assert [c.scheme for c in got] == ["Newauth", "Basic", "Basic", "Bearer"]
    assert got[0].params == {"realm": "apps", "type": "1", "title": 'Login to "apps"'}
    assert got[1].params == {"realm": "simple"}
    assert got[2].token68 == "dXNlcjpwYXNz==" and got[2].params == {}
    assert got[3].params == {}


def test_several_headers_and_auth_challenge_picks_bearer_or_dpop():
    got = parse_www_authenticate(
        ['Basic realm="x"', 'DPoP algs="ES256 PS256", error="use_dpop_nonce"', 'Bearer realm="y"']
    )
    assert [c.scheme for c in got] == ["Basic", "DPoP", "Bearer"]
    chosen = auth_challenge(got)
    assert chosen is not None and chosen.scheme == "DPoP" and chosen.algs == ["ES256", "PS256"]
    assert auth_challenge(parse_www_authenticate('Basic realm="x", bearer realm="y"')).scheme == "bearer"
    assert auth_challenge(parse_www_authenticate('Basic realm="x"')) is None
    assert auth_challenge([]) is None


def test_names_are_lowercased_and_first_occurrence_wins():
    [c] = parse_www_authenticate('BEARER Scope="a", SCOPE="b", Error=invalid_token')
    assert c.scheme == "BEARER" and c.is_scheme("bearer")
    assert c.params == {"scope": "a", "error": "invalid_token"}


def test_lenient_real_world_forms():
    # unquoted URL, spaces around "=", missing commas between params
    [c] = parse_www_authenticate(
        "Bearer resource_metadata=https://h.example/.well-known/oauth-protected-resource?x=1 "
        'scope = "a b" error="invalid_token"'
    )
    assert c.resource_metadata == "https://h.example/.well-known/oauth-protected-resource?x=1"
    assert c.scope == "a b" and c.error == "invalid_token"
    # a comma inside a quoted string does not split the challenge
    [c] = parse_www_authenticate('Bearer error_description="a, b, c=d", scope="x"')
    assert c.error_description == "a, b, c=d" and c.scope == "x"


def test_garbage_gives_what_could_be_read():
    assert parse_www_authenticate("") == []
    assert parse_www_authenticate(None) == []
    assert parse_www_authenticate(",,, ,") == []
    assert parse_www_authenticate('=x, "quoted", ==') == []
    got = parse_www_authenticate('=x, Bearer scope="unterminated')
    assert got == [Challenge("Bearer", {"scope": "unterminated"})]
    got = parse_www_authenticate('Bearer scope="a\\')  # a lone backslash at the end
    assert got[0].scheme == "Bearer"


def test_hostile_sizes_are_bounded():
    many = ", ".join(f"S{i}" for i in range(10_000))
    assert len(parse_www_authenticate(many)) <= MAX_CHALLENGES
    params = "Bearer " + ", ".join(f"p{i}=v" for i in range(10_000))
    [c] = parse_www_authenticate(params)
    assert len(c.params) <= 64
    huge = 'Bearer scope="' + "a" * 5_000_000 + '"'
    [c] = parse_www_authenticate(huge)
    assert c.scope is not None and len(c.scope) < 20_000
    assert len(parse_www_authenticate(["Bearer"] * 10_000)) <= MAX_CHALLENGES


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.text(max_size=300), st.lists(st.text(max_size=80), max_size=5)))
def test_never_raises_on_any_text(value):
    got = parse_www_authenticate(value)
    assert isinstance(got, list)
    for c in got:
        assert c.scheme and all(name == name.lower() for name in c.params)
        auth_challenge(got)
        insufficient_scope(403, got)


_token = st.text(alphabet="abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.", min_size=1, max_size=12)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(_token, st.dictionaries(_token, st.text(max_size=30), max_size=5)), min_size=1, max_size=4))
def test_round_trip_of_well_formed_challenges(challenges):
    """Serialize challenges the RFC way (quoted strings escaped) and read them back."""

    def quote(value: str) -> str:
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'

    header = ", ".join(
        scheme + (" " + ", ".join(f"{k}={quote(v)}" for k, v in params.items()) if params else "")
        for scheme, params in challenges
    )
    got = parse_www_authenticate(header)
    assert [c.scheme for c in got] == [scheme for scheme, _ in challenges]
    for c, (_, params) in zip(got, challenges, strict=True):
        expected: dict[str, str] = {}
        for k, v in params.items():
            expected.setdefault(k.lower(), v)
        assert c.params == expected
