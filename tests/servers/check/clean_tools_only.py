"""check fixture: a tools-only server (no resources, prompts, completions or logging): draws nothing."""

from base import Server, run


class Fixture(Server):
    def capabilities(self):
        return {"tools": {}}


run(Fixture)
