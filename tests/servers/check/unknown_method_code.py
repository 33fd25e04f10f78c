"""check fixture: answers an unknown method with -32603 Internal error, not -32601 (draws unknown-method)."""

from base import Server, run


class Fixture(Server):
    def unknown_method(self, msg_id, method):
        self.error(msg_id, -32603, f"Internal error: cannot handle {method}")


run(Fixture)
