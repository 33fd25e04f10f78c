"""Protocol revisions this client speaks, and the era each belongs to.

Revisions up to 2025-11-25 are "legacy" (an ``initialize`` handshake, a session);
2026-07-28 and later are "modern" (no handshake: every request carries its
version and the client's capabilities in ``_meta``).
"""

LEGACY_VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
LATEST_LEGACY = "2025-11-25"
MODERN_VERSIONS = ("2026-07-28",)
LATEST_MODERN = "2026-07-28"
ERAS = ("auto", "legacy", "modern")


def era_of(version: str | None) -> str | None:
    """ "legacy" or "modern" for a revision this client speaks, else None."""
    if version in LEGACY_VERSIONS:
        return "legacy"
    if version in MODERN_VERSIONS:
        return "modern"
    return None
