"""check fixture: sends a log message without declaring logging (draws logging-undeclared)."""

from base import Server, run


class Fixture(Server):
    def capabilities(self):
        return {key: value for key, value in super().capabilities().items() if key != "logging"}

    def notification(self, method, params):
        if method == "notifications/initialized":
            self.send({"method": "notifications/message", "params": {"level": "info", "data": "ready"}})


run(Fixture)
