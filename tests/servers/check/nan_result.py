"""check fixture: writes a bare NaN in a result (Python's json.dumps default) (draws schema-violation)."""

from base import Server, run


class Fixture(Server):
    def read(self, uri):
        if uri == "fixture://readme":
            return {"contents": [{"uri": uri, "text": "x"}], "_meta": {"score": float("nan")}}
        return super().read(uri)


run(Fixture)
