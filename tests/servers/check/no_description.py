"""check fixture: a tool without a description (draws tool-description)."""

from base import Server, run


class Fixture(Server):
    def tools(self):
        tools = super().tools()
        del tools[1]["description"]
        return tools


run(Fixture)
