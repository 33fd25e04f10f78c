"""check fixture: required names a property that is not defined (draws input-schema-required)."""

from base import Server, run


class Fixture(Server):
    def tools(self):
        tools = super().tools()
        tools[1]["inputSchema"]["required"] = ["code", "region"]
        return tools


run(Fixture)
