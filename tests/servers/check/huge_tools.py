"""check fixture: 80 tools with long descriptions (about 25,000 tokens) (draws tool-list-tokens)."""

from base import Server, run


class Fixture(Server):
    def tools(self):
        text = " ".join(
            f"Step {i}: fetch the record, normalise every field, and report what changed." for i in range(25)
        )
        return super().tools() + [
            {"name": f"tool_{i}", "description": text, "inputSchema": {"type": "object"}} for i in range(80)
        ]


run(Fixture)
