"""check fixture: an outputSchema of type array (draws output-schema-invalid)."""

from base import Server, run


class Fixture(Server):
    def tools(self):
        tools = super().tools()
        tools[0]["outputSchema"] = {"type": "array", "items": {"type": "number"}}
        return tools


run(Fixture)
