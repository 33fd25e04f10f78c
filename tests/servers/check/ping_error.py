"""check fixture: answers ping with -32601 (draws ping)."""

from base import Server, run


class Fixture(Server):
    def handle(self, msg_id, method, params):
        if method == "ping":
            self.error(msg_id, -32601, "Method not found: ping")
        else:
            super().handle(msg_id, method, params)


run(Fixture)
