"""check fixture: an inputSchema without type object (draws input-schema-type)."""

from base import Server, run


class Fixture(Server):
    def tools(self):
        tools = super().tools()
        tools[1]["inputSchema"] = {"properties": {"code": {"type": "string"}}}
        return tools


run(Fixture)
