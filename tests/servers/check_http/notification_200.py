"""Notifications are answered 200 with a JSON body, not 202 with none (draws http-notification-status)."""

from http_base import Handler, run


class Defect(Handler):
    def accepted(self) -> None:
        self.answer(200, b"{}", "application/json")


if __name__ == "__main__":
    run(Defect)
