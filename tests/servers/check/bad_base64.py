"""check fixture: a resource blob that is not base64 (draws content)."""

from base import Server, run


class Fixture(Server):
    def read(self, uri):
        if uri == "fixture://pixel":
            return {"contents": [{"uri": uri, "mimeType": "image/png", "blob": "not base64 at all!"}]}
        return super().read(uri)


run(Fixture)
