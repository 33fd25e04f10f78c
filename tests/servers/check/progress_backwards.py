"""check fixture: a tool whose progress goes 2, then 1; checked with --call count (draws progress)."""

from base import Server, run


class Fixture(Server):
    def tools(self):
        return super().tools() + [
            {"name": "count", "description": "Count to two, with progress.", "inputSchema": {"type": "object"}}
        ]

    def handle(self, msg_id, method, params):
        token = (params.get("_meta") or {}).get("progressToken")
        if method == "tools/call" and params.get("name") == "count" and token is not None:
            for value in (2, 1):
                self.send({"method": "notifications/progress", "params": {"progressToken": token, "progress": value}})
        super().handle(msg_id, method, params)

    def call(self, name, arguments):
        if name == "count":
            return {"content": [{"type": "text", "text": "done"}]}
        return super().call(name, arguments)


run(Fixture)
