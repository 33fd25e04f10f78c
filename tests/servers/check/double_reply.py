"""check fixture: answers every ping twice (draws response-id)."""

from base import Server, run


class Fixture(Server):
    def handle(self, msg_id, method, params):
        super().handle(msg_id, method, params)
        if method == "ping":
            self.reply(msg_id, {})


run(Fixture)
