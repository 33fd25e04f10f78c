"""check fixture: returns the same nextCursor for ever (draws pagination)."""

from base import Server, run


class Fixture(Server):
    def paged(self, key, items, params):
        result = super().paged(key, items, params)
        if key == "tools":
            result["nextCursor"] = "page-2"
        return result


run(Fixture)
