"""The shapes of core/auth keep their secrets out of repr (an error message or a log line that
shows one of them never shows a token, a client secret, a key or an assertion)."""

from mcp_inspector.core.auth.model import AuthSettings, ClientInfo, TokenSet

SECRETS = [
    "access-token-value-1234",
    "refresh-token-value-5678",
    "client-secret-value-9012",
    "-----BEGIN PRIVATE KEY-----abc",
    "assertion.jwt.value",
    "id.token.value",
    "idp-secret-value-3456",
]


def test_no_secret_in_the_repr_of_settings_client_and_tokens():
    shown = " ".join(
        repr(value)
        for value in (
            AuthSettings(
                client_id="me",
                client_secret=SECRETS[2],
                private_key_pem=SECRETS[3],
                assertion=SECRETS[4],
                id_token=SECRETS[5],
                idp_client_secret=SECRETS[6],
            ),
            ClientInfo("me", SECRETS[2], token_auth_method="client_secret_basic"),
            TokenSet(SECRETS[0], refresh_token=SECRETS[1], scope="mcp"),
        )
    )
    assert "client_id='me'" in shown and "scope='mcp'" in shown
    assert not [secret for secret in SECRETS if secret in shown]
