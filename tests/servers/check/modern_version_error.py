"""check fixture: an unsupported version answered -32602 without data.supported (draws unsupported-version)."""

from base import ModernServer, run


class Fixture(ModernServer):
    def unsupported(self, msg_id, requested):
        self.error(msg_id, -32602, f"bad version {requested}")


run(Fixture)
