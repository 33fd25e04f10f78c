"""check fixture: ignores a line that is not JSON (no -32700) (draws malformed-input)."""

from base import Server, run


class Fixture(Server):
    def parse_error(self, line):
        pass


run(Fixture)
