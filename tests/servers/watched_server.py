"""A small server the watch tests copy to a temp folder and edit there (the official ``mcp`` SDK).

Tools: ``echo(text)`` -> the text. The tests add tools above the marker comment at the end, change
descriptions, and break the file with a syntax error, then fix it.
"""

import warnings

warnings.filterwarnings("ignore")

from mcp.server.mcpserver import MCPServer  # noqa: E402 - after the sys.path/environment setup above

server = MCPServer("watched", version="1.0.0", log_level="WARNING")


@server.tool(description="Echo the text", structured_output=False)
def echo(text: str) -> str:
    return text


# more tools

if __name__ == "__main__":
    server.run("stdio")
