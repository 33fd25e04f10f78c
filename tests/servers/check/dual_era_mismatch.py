"""check fixture: speaks both eras, one more tool in 2026-07-28; checked with --era both (draws era-mismatch)."""

from base import VERSION_KEY, ModernServer, Server, run


class Fixture(ModernServer):
    modern = False

    def capabilities(self):
        return Server.capabilities(self) if not self.modern else super().capabilities()

    def reply(self, msg_id, result):
        if self.modern:
            super().reply(msg_id, result)
        else:
            Server.reply(self, msg_id, result)

    def tools(self):
        tools = super().tools()
        if self.modern:
            tools.append(
                {"name": "modern_only", "description": "Only in 2026-07-28.", "inputSchema": {"type": "object"}}
            )
        return tools

    def handle(self, msg_id, method, params):
        meta = params.get("_meta") if isinstance(params.get("_meta"), dict) else {}
        self.modern = VERSION_KEY in meta
        if self.modern:
            super().handle(msg_id, method, params)
        else:
            Server.handle(self, msg_id, method, params)


run(Fixture)
