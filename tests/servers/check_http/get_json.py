"""GET is answered 200 with a JSON body, not an SSE stream or 405 (draws http-get)."""

from http_base import Handler, run


class Defect(Handler):
    def do_GET(self) -> None:
        self.answer(200, b'{"status": "ok"}', "application/json")


if __name__ == "__main__":
    run(Defect)
