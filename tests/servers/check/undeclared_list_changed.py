"""check fixture: sends tools/list_changed without declaring listChanged (draws list-changed-undeclared)."""

from base import Server, run


class Fixture(Server):
    def capabilities(self):
        return {**super().capabilities(), "tools": {}}

    def notification(self, method, params):
        if method == "notifications/initialized":
            self.send({"method": "notifications/tools/list_changed"})


run(Fixture)
