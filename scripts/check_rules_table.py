"""Write the check's rule table into docs/checks.md from the registry (core/checks/catalog.py).

python scripts/check_rules_table.py          # rewrite the block between the markers
python scripts/check_rules_table.py --check  # exit 1 when the page is out of date
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from mcp_inspector.core.checks.docs import replace_table  # noqa: E402 - after the sys.path/environment setup above

PAGE = Path(__file__).resolve().parents[1] / "docs" / "checks.md"


def main() -> int:
    text = PAGE.read_text(encoding="utf-8")
    fresh = replace_table(text)
    if "--check" in sys.argv[1:]:
        return 0 if fresh == text else 1
    if fresh != text:
        PAGE.write_text(fresh, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
