"""check fixture: lists a resource without its required name (draws schema-violation)."""

from base import Server, run


class Fixture(Server):
    def resources(self):
        return [{"uri": "fixture://readme", "mimeType": "text/plain"}]


run(Fixture)
