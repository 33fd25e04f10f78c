"""check fixture: answers initialize after 5.5 s (draws startup-slow)."""

from base import Server, run, sleep


class Fixture(Server):
    def initialize(self, msg_id, params):
        sleep(5.5)
        super().initialize(msg_id, params)


run(Fixture)
