"""Any MCP-Protocol-Version header is served, even one no revision has (draws http-protocol-version)."""

from http_base import Handler, run


class Defect(Handler):
    def version_supported(self, version: str) -> bool:
        return True


if __name__ == "__main__":
    run(Defect)
