"""check fixture: sends progress for a token no request carries (draws progress)."""

from base import Server, run


class Fixture(Server):
    def notification(self, method, params):
        if method == "notifications/initialized":
            self.send({"method": "notifications/progress", "params": {"progressToken": "nobody", "progress": 1}})


run(Fixture)
