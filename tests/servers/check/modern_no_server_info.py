"""check fixture: 2026-07-28 results without _meta serverInfo (draws server-info-meta)."""

from base import ModernServer, run


class Fixture(ModernServer):
    def reply(self, msg_id, result):
        self.send({"id": msg_id, "result": {**self.cache(result), "resultType": "complete", **result}})


run(Fixture)
