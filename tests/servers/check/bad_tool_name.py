"""check fixture: names a tool with a space and a slash (draws tool-name-format)."""

from base import Server, run


class Fixture(Server):
    def tools(self):
        tools = super().tools()
        tools[1]["name"] = "look up/code"
        return tools


run(Fixture)
