"""check fixture: asks for roots before notifications/initialized (draws lifecycle)."""

from base import Server, run


class Fixture(Server):
    def initialize(self, msg_id, params):
        super().initialize(msg_id, params)
        self.send({"id": "early-1", "method": "roots/list"})


run(Fixture)
