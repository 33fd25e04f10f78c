"""check fixture: readOnlyHint and destructiveHint both true (draws tool-annotations)."""

from base import Server, run


class Fixture(Server):
    def tools(self):
        tools = super().tools()
        tools[0]["annotations"] = {"readOnlyHint": True, "destructiveHint": True}
        return tools


run(Fixture)
