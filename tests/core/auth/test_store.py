"""TokenStore: files 0600 in a 0700 directory, written atomically, foreign files skipped with a
note, the keyring mode's secrets kept out of the file, the none mode kept off the disk."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import keyring
import keyring.backend
import keyring.backends.fail
import keyring.errors
import pytest

from mcp_inspector.core.auth.model import ClientInfo, TokenSet
from mcp_inspector.core.auth.store import MAX_FILE, StoredAuth, StoreError, TokenStore, url_key
from mcp_inspector.core.base.masking import scrub

URL = "https://mcp.example.com/mcp"
ACCESS = "at-7Hq2mXv9Lr4Kp0Zs3Wd8"
REFRESH = "rt-Bn5Jc1Tf6Yg2Ue8Io4Pa"
DCR_SECRET = "dcr-secret-Q9w8E7r6T5y4"
USER_SECRET = "user-secret-Z1x2C3v4B5n6"
REPO = Path(__file__).resolve().parents[3]


class DictKeyring(keyring.backend.KeyringBackend):
    """A keyring backend in a JSON file (MCP_TEST_KEYRING_FILE), standing in for the system's."""

    @keyring.backend.properties.classproperty
    def priority(cls) -> float:
        """Viable only where a test says where its file is: keyring's own discovery skips it."""
        if "MCP_TEST_KEYRING_FILE" not in os.environ:
            raise RuntimeError("a test backend")
        return 0.01

    def __init__(self, path: str | None = None) -> None:
        super().__init__()
        self.path = Path(path or os.environ["MCP_TEST_KEYRING_FILE"])

    def _all(self) -> dict:
        return json.loads(self.path.read_text()) if self.path.exists() else {}

    def get_password(self, service, username):
        return self._all().get(f"{service}/{username}")

    def set_password(self, service, username, password):
        data = self._all()
        data[f"{service}/{username}"] = password
        self.path.write_text(json.dumps(data))

    def delete_password(self, service, username):
        data = self._all()
        if data.pop(f"{service}/{username}", None) is None:
            raise keyring.errors.PasswordDeleteError("not there")
        self.path.write_text(json.dumps(data))


@pytest.fixture
def auth_dir(tmp_path) -> Path:
    return tmp_path / "auth"


@pytest.fixture
def ring(tmp_path, monkeypatch):
    previous = keyring.get_keyring()
    monkeypatch.setenv("MCP_TEST_KEYRING_FILE", str(tmp_path / "ring.json"))
    backend = DictKeyring()
    keyring.set_keyring(backend)
    yield backend
    keyring.set_keyring(previous)


def entry(
    url: str = URL, via: str = "dynamic", secret: str | None = DCR_SECRET, refresh: str | None = REFRESH
) -> StoredAuth:
    client = ClientInfo(
        "client-42",
        secret,
        "client_secret_basic" if secret else "none",
        via,
        "https://as.example.com",
        ["http://127.0.0.1/callback"],
        {"client_id": "client-42", "client_secret": secret, "registration_access_token": "rat-0123456789abc"},
    )
    tokens = TokenSet(
        ACCESS, "Bearer", refresh, 2_000_000_000.0, "read write", "https://as.example.com", url, "client-42"
    )
    return StoredAuth(url, url, "https://as.example.com", client, tokens, 1_700_000_000.0)


def test_a_saved_entry_is_loaded_back_from_a_private_file(tmp_path):
    directory = tmp_path / "state" / "auth"
    TokenStore("file", directory).save(entry())
    files = list(directory.iterdir())
    assert len(files) == 1 and files[0].name == url_key(URL)[:40] + ".json"
    assert stat.S_IMODE(directory.stat().st_mode) == 0o700
    assert stat.S_IMODE(files[0].stat().st_mode) == 0o600
    loaded = TokenStore("file", directory).load(URL)  # a new store: another run
    assert loaded is not None and loaded.server_url == URL and loaded.resource == URL
    assert loaded.tokens == entry().tokens
    assert loaded.client.client_id == "client-42" and loaded.client.client_secret == DCR_SECRET
    assert loaded.client.registered_via == "dynamic" and loaded.client.redirect_uris == ["http://127.0.0.1/callback"]
    assert "rat-0123456789abc" not in files[0].read_text()  # the DCR response is kept masked
    # scheme and host are not case-sensitive; a fragment is not part of the server
    assert TokenStore("file", directory).load("HTTPS://MCP.Example.com/mcp#top") is not None
    assert TokenStore("file", directory).load(URL + "/other") is None


def test_saving_again_replaces_the_file_atomically_and_tightens_the_directory(tmp_path):
    directory = tmp_path / "auth"
    directory.mkdir(mode=0o755)
    os.chmod(directory, 0o755)
    store = TokenStore("file", directory)
    store.save(entry())
    newer = entry()
    newer.tokens.access_token = "at-second-0123456789"
    store.save(newer)
    assert stat.S_IMODE(directory.stat().st_mode) == 0o700
    assert [path.name for path in directory.iterdir()] == [url_key(URL)[:40] + ".json"]  # no temp file left
    assert store.load(URL).tokens.access_token == "at-second-0123456789"


def test_a_user_given_client_secret_is_never_written(tmp_path):
    store = TokenStore("file", tmp_path)
    store.save(entry(via="pre-registered", secret=USER_SECRET))
    text = next(tmp_path.iterdir()).read_text()
    assert USER_SECRET not in text
    loaded = store.load(URL)
    assert loaded.client.client_id == "client-42" and loaded.client.client_secret is None
    assert loaded.tokens.access_token == ACCESS


def test_the_server_url_is_kept_masked_and_found_by_its_hash(tmp_path):
    url = "https://user:pa55word-xyz@mcp.example.com/mcp?api_key=key-0123456789abc"
    store = TokenStore("file", tmp_path)
    store.save(entry(url))
    document = json.loads(next(tmp_path.iterdir()).read_text())
    assert "pa55word-xyz" not in document["server_url"] and "key-0123456789abc" not in document["server_url"]
    loaded = store.load(url)
    assert loaded.server_url == url and loaded.resource == url and loaded.tokens.resource == url
    shown = store.entries()[0].server_url
    assert shown != url and "•••" in shown
    assert store.forget(shown) == 1  # as `auth status` shows it
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    "content, why",
    [
        (b"{not json", "not valid JSON"),
        (b"\xff\xfe garbage", "not valid JSON"),
        (b"[1, 2]", "not a token store file"),
        (b'{"format": "something-else"}', "not a token store file"),
        (b'{"format": "mcp-inspector-auth", "version": 99}', "format version 99"),
        (
            b'{"format": "mcp-inspector-auth", "version": 1, "key": "KEY", "secrets": "file", "server_url": 5, '
            b'"resource": "r"}',
            "'server_url' is not a string",
        ),
        (
            b'{"format": "mcp-inspector-auth", "version": 1, "key": "KEY", "secrets": "file", "server_url": "u", '
            b'"resource": "r",'
            b' "tokens": {"token_type": "Bearer"}}',
            "the access token is missing",
        ),
        (
            b'{"format": "mcp-inspector-auth", "version": 1, "key": "KEY", "secrets": "file", "server_url": "u", '
            b'"resource": "r",'
            b' "client": {"client_id": "c", "registered_via": "stolen"}}',
            "'client.registered_via' is not known",
        ),
        (b"[" * 100_000 + b"]" * 100_000, "not valid JSON"),
        (b"{" + b" " * MAX_FILE + b"}", "over 256 KiB"),
    ],
    ids=[
        "broken",
        "not-utf8",
        "array",
        "other-format",
        "other-version",
        "bad-field",
        "no-token",
        "bad-client",
        "deep",
        "huge",
    ],
)
def test_a_corrupt_or_foreign_file_is_ignored_with_a_note(tmp_path, content, why):
    key = url_key(URL)
    path = tmp_path / f"{key[:40]}.json"
    path.write_bytes(content.replace(b"KEY", key.encode()))
    store = TokenStore("file", tmp_path)
    assert store.load(URL) is None
    assert store.entries() == []
    assert any(why in note and str(path) in note for note in store.notes), store.notes
    store.save(entry())  # a new flow replaces it
    assert store.load(URL) is not None


def test_another_servers_file_under_this_name_is_not_used(tmp_path):
    store = TokenStore("file", tmp_path)
    store.save(entry("https://other.example.com/mcp"))
    other = next(tmp_path.iterdir())
    os.replace(other, tmp_path / f"{url_key(URL)[:40]}.json")
    assert store.load(URL) is None
    assert any("another server URL" in note for note in store.notes)


def test_a_symlink_and_a_large_file_are_not_read(tmp_path):
    target = tmp_path / "elsewhere.txt"
    target.write_text("secret stuff")
    directory = tmp_path / "auth"
    directory.mkdir()
    (directory / f"{url_key(URL)[:40]}.json").symlink_to(target)
    (directory / "big.json").write_bytes(b" " * (MAX_FILE + 10))
    store = TokenStore("file", directory)
    assert store.load(URL) is None and store.entries() == []
    assert len(store.notes) == 2, store.notes


def test_forget_one_all_and_nothing(tmp_path):
    store = TokenStore("file", tmp_path)
    for n in range(3):
        store.save(entry(f"https://s{n}.example.com/mcp"))
    assert len(store.entries()) == 3
    assert store.forget("https://s1.example.com/mcp") == 1
    assert store.forget("https://s1.example.com/mcp") == 0
    assert store.forget("https://never.example.com/mcp") == 0
    assert {e.server_url for e in store.entries()} == {"https://s0.example.com/mcp", "https://s2.example.com/mcp"}
    assert store.forget() == 2
    assert list(tmp_path.iterdir()) == []
    assert TokenStore("file", tmp_path / "absent").forget() == 0


def test_the_none_store_writes_nothing(tmp_path):
    directory = tmp_path / "auth"
    store = TokenStore("none", directory)
    store.save(entry())
    assert store.load(URL).tokens.access_token == ACCESS
    assert len(store.entries()) == 1
    assert not directory.exists()
    assert TokenStore("none", directory).load(URL) is None  # nothing persists
    assert store.forget() == 1 and store.load(URL) is None


def test_an_unknown_mode_is_an_error():
    with pytest.raises(StoreError, match="unknown token store 'disk'"):
        TokenStore("disk")


def test_the_keyring_keeps_the_secrets_and_the_file_the_rest(auth_dir, ring):
    store = TokenStore("keyring", auth_dir)
    store.save(entry())
    text = next(auth_dir.iterdir()).read_text()
    for secret in (ACCESS, REFRESH, DCR_SECRET):
        assert secret not in text
    assert '"secrets": "keyring"' in text and '"has_refresh_token": true' in text
    assert ACCESS in ring.path.read_text()
    loaded = TokenStore("keyring", auth_dir).load(URL)
    assert loaded.tokens.access_token == ACCESS and loaded.tokens.refresh_token == REFRESH
    assert loaded.client.client_secret == DCR_SECRET and loaded.secrets_in == "keyring"
    assert TokenStore("file", auth_dir).load(URL).tokens.access_token == ACCESS  # read whatever the mode
    # status reads no secret: the keyring is not asked
    ring.path.unlink()
    shown = TokenStore("file", auth_dir).entries(load_secrets=False)
    assert len(shown) == 1 and not shown[0].secrets_loaded
    assert shown[0].tokens.access_token == "" and shown[0].tokens.refresh_token == ""
    assert shown[0].tokens.scope == "read write"


def test_with_the_keyring_no_credential_of_the_url_is_in_the_file(auth_dir, ring):
    url = "https://user:pa55word-xyz@mcp.example.com/mcp?api_key=key-0123456789abc"
    store = TokenStore("keyring", auth_dir)
    store.save(entry(url))
    text = next(auth_dir.iterdir()).read_text()
    assert "pa55word-xyz" not in text and "key-0123456789abc" not in text
    loaded = store.load(url)
    assert loaded.server_url == url and loaded.resource == url and loaded.tokens.resource == url


def test_forgetting_a_keyring_entry_removes_its_secrets(auth_dir, ring):
    store = TokenStore("keyring", auth_dir)
    store.save(entry())
    assert store.forget(URL) == 1
    assert json.loads(ring.path.read_text()) == {}
    assert list(auth_dir.iterdir()) == []


def test_a_keyring_entry_whose_secrets_are_gone_is_skipped(auth_dir, ring):
    TokenStore("keyring", auth_dir).save(entry())
    ring.path.write_text("{}")
    store = TokenStore("keyring", auth_dir)
    assert store.load(URL) is None
    assert any("not in the system keyring" in note for note in store.notes)


def test_no_keyring_backend_is_a_clear_error(tmp_path):
    previous = keyring.get_keyring()
    keyring.set_keyring(keyring.backends.fail.Keyring())
    try:
        with pytest.raises(StoreError, match="no system keyring is available.*--auth-store file"):
            TokenStore("keyring", tmp_path)
    finally:
        keyring.set_keyring(previous)


def test_without_the_keyring_package_the_error_names_the_extra(tmp_path):
    code = (
        "import sys; sys.modules['keyring'] = None\n"
        "from mcp_inspector.core.auth.store import TokenStore, StoreError\n"
        "try:\n    TokenStore('keyring', sys.argv[1])\n"
        "except StoreError as exc:\n    print(exc)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True, cwd=REPO, timeout=60
    )
    assert "pip install 'mcp-inspector[keyring]'" in result.stdout, result.stderr


def test_loaded_secrets_are_masked_where_a_server_echoes_them(tmp_path):
    TokenStore("file", tmp_path).save(entry())
    TokenStore("file", tmp_path).load(URL)
    text = scrub(f"the server said: bad token {ACCESS} / {REFRESH} / {DCR_SECRET}")
    for secret in (ACCESS, REFRESH, DCR_SECRET):
        assert secret not in text
    assert "bad token at-7•••" in text


def test_an_unwritable_directory_is_a_store_error(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    with pytest.raises(StoreError, match="cannot make the token store directory"):
        TokenStore("file", blocker / "auth").save(entry())
