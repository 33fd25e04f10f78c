"""An unknown or ended session id gets 400, not 404 (draws http-session-unknown)."""

from http_base import Handler, run


class Defect(Handler):
    def unknown_session_status(self) -> int:
        return 400


if __name__ == "__main__":
    run(Defect)
