"""Replies carry JSON with no Content-Type header (draws http-content-type)."""

from http_base import Handler, run


class Defect(Handler):
    def reply_content_type(self) -> str | None:
        return None


if __name__ == "__main__":
    run(Defect)
