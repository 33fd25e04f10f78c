"""check fixture: a resource template that is not RFC 6570 (draws uri-template)."""

from base import Server, run


class Fixture(Server):
    def templates(self):
        return [{"uriTemplate": "fixture://notes/{note id}", "name": "note"}]


run(Fixture)
