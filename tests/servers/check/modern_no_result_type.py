"""check fixture: 2026-07-28 results with a resultType no revision defines (draws result-type)."""

from base import SERVER_INFO_KEY, ModernServer, run


class Fixture(ModernServer):
    def reply(self, msg_id, result):
        self.send(
            {
                "id": msg_id,
                "result": {
                    **self.cache(result),
                    **result,
                    "resultType": "done",
                    "_meta": {SERVER_INFO_KEY: {"name": self.name, "version": "1"}},
                },
            }
        )


run(Fixture)
