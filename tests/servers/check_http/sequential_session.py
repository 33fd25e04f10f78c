"""Session ids are a counter: "mcp-session-00000001", "mcp-session-00000002"... (draws http-session-id)."""

from http_base import Handler, run


class Defect(Handler):
    def new_session_id(self) -> str:
        return f"mcp-session-{type(self).issued + 1:08d}"


if __name__ == "__main__":
    run(Defect)
