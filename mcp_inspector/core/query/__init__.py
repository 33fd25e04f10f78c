"""jq queries over frames, results and recordings (issue 12).

``expression`` compiles an expression (a one-line error as you type) and builds
the programs that run; ``sandbox`` runs them in a child process (``child``),
because jq's C engine holds the GIL: a query that never ends (``last(range(1e12))``)
would freeze the TUI or the CLI, even ctrl+c. The child caps what it returns and
its own CPU time, so such a query is stopped with a one-line reason.
"""

from .expression import QueryError, check_expression, is_match
from .sandbox import FrameOutputs, QuerySandbox, QueryStopped

__all__ = ["FrameOutputs", "QueryError", "QuerySandbox", "QueryStopped", "check_expression", "is_match"]
