"""A stand-in for a person's browser, for ``--oauth-open browser`` tests: ``$BROWSER`` names a copy
of this script (made executable by ``install_fake_browser``), which Python's ``webbrowser``
runs with the authorization URL as its one argument.

It GETs the authorization URL without following the redirect, then GETs the redirect's
``Location`` (the inspector's loopback listener) as a browser would, and appends one JSON line
to ``$FAKE_BROWSER_LOG``: the URLs, the listener's port, its status and page. The test reads
that line (and connects to the port afterwards: the listener must be gone).

``FAKE_BROWSER_MODE=ignore``: only log the URL (with the listener's port, from its
``redirect_uri``), as a person who never comes back.
"""

from __future__ import annotations

import json
import os
import sys
import urllib.error
import urllib.request
from urllib.parse import parse_qs, urlsplit


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        return None


def main() -> int:
    url = sys.argv[1]
    record: dict = {"authorization_url": url}
    if os.environ.get("FAKE_BROWSER_MODE") == "ignore":
        redirect_uri = parse_qs(urlsplit(url).query).get("redirect_uri", [""])[0]
        record["listener_port"] = urlsplit(redirect_uri).port
        with open(os.environ["FAKE_BROWSER_LOG"], "a", encoding="utf-8") as log:
            log.write(json.dumps(record) + "\n")
        return 0
    try:
        try:
            urllib.request.build_opener(NoRedirect).open(url, timeout=10)
            record["error"] = "the authorization URL did not redirect"
        except urllib.error.HTTPError as exc:
            location = exc.headers.get("Location")
            record["authorization_status"] = exc.code
            record["location"] = location
            if location:
                record["listener_port"] = urlsplit(location).port
                try:
                    with urllib.request.urlopen(location, timeout=10) as page:
                        record["listener_status"] = page.status
                        record["listener_page"] = page.read(4096).decode("utf-8", "replace")
                except urllib.error.HTTPError as answer:
                    record["listener_status"] = answer.code
                    record["listener_page"] = answer.read(4096).decode("utf-8", "replace")
    except OSError as exc:
        record["error"] = f"{exc.__class__.__name__}: {exc}"
    with open(os.environ["FAKE_BROWSER_LOG"], "a", encoding="utf-8") as log:
        log.write(json.dumps(record) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
