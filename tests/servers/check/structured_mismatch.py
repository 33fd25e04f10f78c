"""check fixture: add's structuredContent does not match its outputSchema (--call add) (draws structured-content)."""

from base import Server, run


class Fixture(Server):
    def call(self, name, arguments):
        if name == "add":
            return {"content": [{"type": "text", "text": "3"}], "structuredContent": {"total": "3"}}
        return super().call(name, arguments)


run(Fixture)
