"""check fixture: a server/discover result without supportedVersions (draws discover-result)."""

from base import ModernServer, run


class Fixture(ModernServer):
    def discover(self, msg_id):
        self.reply(msg_id, {"capabilities": self.capabilities()})


run(Fixture)
