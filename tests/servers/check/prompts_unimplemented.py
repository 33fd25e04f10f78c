"""check fixture: declares prompts but prompts/list is -32601 (draws capability-unimplemented)."""

from base import Server, run


class Fixture(Server):
    def handle(self, msg_id, method, params):
        if method.startswith("prompts/"):
            self.unknown_method(msg_id, method)
        else:
            super().handle(msg_id, method, params)


run(Fixture)
