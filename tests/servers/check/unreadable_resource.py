"""check fixture: lists a resource that resources/read does not know (draws resource-read)."""

from base import Server, run


class Fixture(Server):
    def resources(self):
        return super().resources() + [{"uri": "fixture://gone", "name": "gone"}]


run(Fixture)
