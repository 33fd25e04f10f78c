"""check fixture: the ModernServer as it is (draws nothing at warning or error)."""

from base import ModernServer, run

run(ModernServer)
