"""check fixture: answers initialize with a version no revision has (draws initialize-version)."""

from base import Server, run


class Fixture(Server):
    def initialize(self, msg_id, params):
        self.reply(
            msg_id,
            {
                "protocolVersion": "2024-13-01",
                "capabilities": self.capabilities(),
                "serverInfo": {"name": self.name, "version": "1.0.0"},
            },
        )


run(Fixture)
