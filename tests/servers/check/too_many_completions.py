"""check fixture: 150 completion values (draws completion)."""

from base import Server, run


class Fixture(Server):
    def complete(self, ref, argument):
        return [f"value-{i}" for i in range(150)]


run(Fixture)
