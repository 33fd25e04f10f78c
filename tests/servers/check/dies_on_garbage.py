"""check fixture: exits on a line that is not JSON (draws malformed-input)."""

from base import Server, run


class Fixture(Server):
    def parse_error(self, line):
        raise SystemExit(1)


run(Fixture)
