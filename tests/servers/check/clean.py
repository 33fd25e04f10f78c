"""check fixture: the base server as it is (draws nothing at warning or error)."""

from base import Server, run

run(Server)
