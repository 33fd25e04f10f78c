"""check fixture: an inputSchema with a type JSON Schema does not have (draws input-schema-invalid)."""

from base import Server, run


class Fixture(Server):
    def tools(self):
        tools = super().tools()
        tools[0]["inputSchema"]["properties"]["a"]["type"] = "float"
        return tools


run(Fixture)
