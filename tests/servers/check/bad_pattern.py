"""check fixture: an inputSchema whose pattern is not a regex (draws input-schema-invalid)."""

from base import Server, run


class Fixture(Server):
    def tools(self):
        tools = super().tools()
        tools[1]["inputSchema"]["properties"]["code"]["pattern"] = "^[A-Z0-9{2,8}$"
        return tools


run(Fixture)
