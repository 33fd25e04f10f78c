"""Protocol revisions this client speaks."""

LEGACY_VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
LATEST_LEGACY = "2025-11-25"
MODERN_VERSIONS = ("2026-07-28",)
