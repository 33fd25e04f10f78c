"""Secrets are shown as a head and a mask, never whole."""

from mcp_inspector.core.base.masking import MASK, mask_header, mask_headers, mask_url, mask_value
from mcp_inspector.core.traffic.http_log import HttpLog


def test_authorization_keeps_its_scheme_and_hides_the_token():
    masked = mask_header("Authorization", "Bearer sk-live-0123456789abcdef")
    assert masked.startswith("Bearer sk-l") and MASK in masked
    assert "0123456789abcdef" not in masked


def test_secret_looking_custom_headers_are_masked_and_others_kept():
    pairs = mask_headers(
        {
            "X-API-Key": "abcdefghijklmnop",
            "X-Upstream-Token": "tttttttttttttttt",
            "Mcp-Session-Id": "sess-123456789",
            "Content-Type": "application/json",
        }
    )
    values = dict(pairs)
    assert "ijklmnop" not in values["X-API-Key"]
    assert "tttttttttttt" not in values["X-Upstream-Token"]
    assert values["Mcp-Session-Id"] == "sess-123456789"
    assert values["Content-Type"] == "application/json"


def test_short_secrets_are_masked_whole():
    assert mask_value("abc") == MASK


def test_url_query_tokens_and_userinfo_are_masked():
    url = mask_url("https://user:hunter2hunter2@example.com/mcp?access_token=supersecretvalue123&page=2")
    assert "hunter2" not in url and "supersecretvalue123" not in url
    assert "page=2" in url and "example.com/mcp" in url
    assert mask_url("http://127.0.0.1:3001/mcp") == "http://127.0.0.1:3001/mcp"


def test_http_log_masks_what_it_records_and_stays_bounded():
    log = HttpLog(cap=3)
    first = log.begin("POST", "https://h/mcp?key=0123456789abcdef", {"Authorization": "Bearer 0123456789abcdef"})
    assert "0123456789abcdef" not in first.url
    assert all("0123456789abcdef" not in value for _, value in first.request_headers)
    log.response(first, 200, "OK", [("Set-Cookie", "sid=0123456789abcdef"), ("Content-Type", "text/event-stream")])
    assert first.content_type == "text/event-stream"
    assert all("0123456789abcdef" not in value for _, value in first.response_headers)
    for _ in range(5):
        log.begin("POST", "https://h/mcp", {})
    assert len(log) == 3 and log.dropped == 3 and log.get(first.id) is None


def test_fragment_tokens_and_unparsable_urls_are_masked():
    url = mask_url("https://h/cb#access_token=supersecretvalue123&state=xyz")
    assert "supersecretvalue123" not in url and "state=xyz" in url
    assert "tok-secret-123456" not in mask_url("http://[bad/?token=tok-secret-123456")
    assert mask_url("http://[bad/path") == "http://[bad/path"
