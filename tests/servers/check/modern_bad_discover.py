"""check fixture: a server/discover result without supportedVersions (draws discover-result)."""

from base import SERVER_INFO_KEY, ModernServer, run  # noqa: F401


class Fixture(ModernServer):
    def discover(self, msg_id):
        self.reply(msg_id, {"capabilities": self.capabilities()})


run(Fixture)
