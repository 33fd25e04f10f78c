"""check fixture: an unsupported version answered -32602 without data.supported (draws unsupported-version)."""

from base import SERVER_INFO_KEY, ModernServer, run  # noqa: F401


class Fixture(ModernServer):
    def unsupported(self, msg_id, requested):
        self.error(msg_id, -32602, f"bad version {requested}")


run(Fixture)
