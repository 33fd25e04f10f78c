"""check fixture: answers a call of an unknown tool with an isError result (draws unknown-tool)."""

from base import Server, run


class Fixture(Server):
    def unknown_tool(self, msg_id, name):
        self.reply(msg_id, {"content": [{"type": "text", "text": f"no tool {name}"}], "isError": True})


run(Fixture)
