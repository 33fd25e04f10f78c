"""check fixture: lists the same tool name twice (draws tool-name-duplicate)."""

from base import Server, run


class Fixture(Server):
    def tools(self):
        tools = super().tools()
        return tools + [dict(tools[0], description="Add again.")]


run(Fixture)
