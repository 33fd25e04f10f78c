"""Any Origin and Host is served: no DNS rebinding protection (draws http-origin)."""

from http_base import Handler, run


class Defect(Handler):
    def origin_allowed(self) -> bool:
        return True


if __name__ == "__main__":
    run(Defect)
