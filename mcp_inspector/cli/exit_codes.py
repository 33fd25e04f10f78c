"""Exit codes, so scripts can tell a tool failure from a protocol failure."""

from __future__ import annotations

OK = 0
TOOL_ERROR = 1  # the tool ran and returned isError: true
RPC_ERROR = 2  # the server answered with a JSON-RPC error
SERVER_FAILURE = 3  # could not start, died, broke the protocol, failed the handshake
TIMEOUT = 4  # a request got no answer within --timeout
OUTPUT_SCHEMA = 5  # the result (not isError) has structuredContent that violates the tool's outputSchema
DIFFERENCES = 6  # replay: a response differs from the recorded one (or never came)
QUERY_ERROR = 7  # --query: the expression failed on the data (jq's runtime error) or was stopped (CPU, memory)
CHECK_FAILED = 8  # check: a finding of severity error (--strict: a warning too)
SURFACE_CHANGED = 9  # diff: a breaking (or impact-unknown) change; --fail-on compatible: any non-cosmetic one
USAGE = 64  # bad arguments, bad config, missing file (EX_USAGE)
INTERNAL = 70  # a bug in mcp-inspector itself (EX_SOFTWARE)
INTERRUPTED = 130  # Ctrl-C (SIGINT); SIGTERM gives 143 and SIGHUP 129, after the same shutdown

EPILOG = """\
exit codes:
  0    success
  1    the tool returned a result with isError: true
  2    the server answered with a JSON-RPC error; -32042 (URL elicitation required)
       too, with each URL to complete in a browser listed on stderr (never opened);
       a task that ended cancelled by the server or another client (no result)
  3    the server failed to start, died, or broke the protocol (incl. the handshake)
  4    a request timed out (notifications/cancelled is sent)
  5    call: the tool's structuredContent does not match its outputSchema (or is missing);
       an isError result is 1 whatever its structuredContent (the schema is for success results)
  6    replay: a response differs from the recorded one, or never came
  7    --query / query: the expression failed on the output (e.g. Cannot index array), or it
       was stopped (over its CPU time or memory); a bad expression is 64, before connecting
  8    check: the server drew a finding of severity error (--strict: or warning)
  9    diff: a breaking change, or one whose impact is unknown (--fail-on compatible:
       also a compatible one)
  64   usage error: bad arguments, bad config, missing file
  70   internal error in mcp-inspector (please report it)
  130  interrupted (Ctrl-C); 143 on SIGTERM, 129 on SIGHUP. Each stops the server
       first: stdin closed, then SIGTERM and SIGKILL to its process group
  pipe: 0 when every request got a result, else the code of the first failure
  (2 error reply, 3 invalid reply, 4 timeout, 64 invalid input line; 3 at once if the server dies)
"""


class UsageError(Exception):
    """The command line (or a file it names) is wrong; exits with USAGE."""
