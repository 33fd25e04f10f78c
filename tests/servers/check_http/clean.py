"""A clean Streamable HTTP server: JSON replies, 202 for notifications, GET 405, random session
ids, 404 for an unknown or ended session, 400 for an unsupported version, 403 for a foreign
Origin or Host. It draws nothing."""

from http_base import Handler, run

if __name__ == "__main__":
    run(Handler)
