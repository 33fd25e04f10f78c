"""check fixture: prints a banner on stdout before the handshake (draws stdout-not-jsonrpc)."""

from base import Server, run


class Fixture(Server):
    def start(self):
        self.write_line("Weather server v2 starting on stdio...")


run(Fixture)
