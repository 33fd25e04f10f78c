"""The registry: every rule id, its severity policy, what it checks, why, the fix and its source.

Ids are fixed (tests, docs and users' ``--ignore`` lists rely on them). The rule table of docs/checks.md is
generated from :data:`RULES` (``scripts/check_rules_table.py``; a test keeps the two equal).
Severity policy: **error** breaks a MUST of the negotiated revision, or makes a major client refuse
the server or the tool; **warning** is a SHOULD, or something some clients refuse; **info** is advice.
"""

from __future__ import annotations

from typing import Any

from .model import Finding, Rule, RuleKind, Severity

SPEC = "https://modelcontextprotocol.io/specification/2025-11-25"
SPEC_MODERN = "https://modelcontextprotocol.io/specification/2026-07-28"
JSONRPC = "https://www.jsonrpc.org/specification"

E, W = Severity.ERROR, Severity.WARNING
LIVE, PROBE, SURFACE, HTTP = RuleKind.LIVE, RuleKind.PROBE, RuleKind.SURFACE, RuleKind.HTTP

_RULES = [
    # -- stdio transport --------------------------------------------------------------------
    Rule(
        "stdout-not-jsonrpc",
        E,
        LIVE,
        "a stdout line that is not a JSON-RPC message",
        "Clients read stdout as the protocol: a log line or banner there breaks the handshake or "
        "kills the connection in Claude Desktop, Cursor and the SDKs (it works only in lenient tools).",
        "Write logs and banners to stderr (Python: logging to sys.stderr, print(..., file=sys.stderr); "
        "Node: console.error).",
        f"{SPEC}/basic/transports#stdio (the server MUST NOT write anything to stdout that is not a valid MCP message)",
        "stdio",
    ),
    Rule(
        "exit-on-eof",
        W,
        PROBE,
        "the server still runs a few seconds after its stdin closed",
        "Closing stdin is how clients ask a stdio server to stop; one that stays is killed with SIGTERM "
        "and SIGKILL, losing what it had not flushed, or lingers as an orphan.",
        "Exit when stdin reaches end of file (the SDKs' stdio transports end their run loop then).",
        f"{SPEC}/basic/lifecycle#stdio (shutdown: the client closes the input stream, then waits for the "
        "server to exit)",
        "stdio",
    ),
    Rule(
        "startup-slow",
        W,
        PROBE,
        "the handshake took more than 5 s",
        "Clients give a server a few seconds to answer initialize (some 5 s, some 10 s) and then "
        "drop it: a slow start looks like a broken server.",
        "Answer initialize first and do slow set-up (downloads, indexes, logins) afterwards or lazily.",
        f"{SPEC}/basic/lifecycle#timeouts",
        "stdio",
    ),
    Rule(
        "malformed-input",
        E,
        PROBE,
        "a line that is not JSON kills the server, or gets no -32700",
        "A client bug or a partial write must not take the server down; JSON-RPC answers unparsable "
        "input with a Parse error (-32700, id null) and goes on.",
        "Catch parse errors per line: reply -32700 with id null and keep reading.",
        f"{JSONRPC}#error_object (-32700 Parse error)",
        "stdio",
    ),
    # -- handshake and lifecycle --------------------------------------------------------------
    Rule(
        "initialize-version",
        E,
        LIVE,
        "initialize answered with a version the client did not offer and the spec does not know, or none",
        "A client cannot speak a revision it does not know: it disconnects, or worse, goes on guessing.",
        "Answer the client's protocolVersion when you support it, else the latest revision you support "
        "(one of 2024-11-05, 2025-03-26, 2025-06-18, 2025-11-25).",
        f"{SPEC}/basic/lifecycle#version-negotiation",
        "lifecycle",
    ),
    Rule(
        "lifecycle",
        W,
        LIVE,
        "a server request other than ping before notifications/initialized",
        "Before the client said it is initialized it may not be ready to answer (roots, sampling, "
        "elicitation): such requests fail or are dropped.",
        "Send requests (other than ping) and list_changed only after notifications/initialized arrived.",
        f"{SPEC}/basic/lifecycle#initialization (the server SHOULD NOT send requests other than pings and "
        "logging before)",
        "lifecycle",
    ),
    Rule(
        "ping",
        E,
        PROBE,
        "ping is not answered with an empty result",
        "Clients and proxies use ping as a health check: an error or no answer gets the server restarted.",
        "Answer ping with {} (the SDKs do it for you).",
        f"{SPEC}/basic/utilities/ping (the receiver MUST respond promptly with an empty response)",
        "lifecycle",
    ),
    Rule(
        "schema-violation",
        E,
        LIVE,
        "a server frame that fails the negotiated revision's schema",
        "Typed clients (the TypeScript and Python SDKs, Claude) validate what they read: a wrong "
        "field type or a missing required member makes the whole result fail.",
        "Fix the field named in the message; an SDK's typed result models keep this from happening.",
        f"{SPEC}/schema (schema.ts of the negotiated revision)",
        "lifecycle",
    ),
    Rule(
        "response-id",
        E,
        LIVE,
        "a response whose id matches no request, or a second response to one",
        "Clients match responses to requests by id: a stray or repeated one is dropped or resolves the wrong call.",
        'Reply exactly once to each request, with its id unchanged (same type: 1 is not "1").',
        f"{SPEC}/basic#responses (responses MUST include the same ID as the request)",
        "lifecycle",
    ),
    Rule(
        "unknown-method",
        W,
        PROBE,
        "an unknown method not answered with -32601",
        "Clients probe optional methods and tell 'not supported' from 'failed' by -32601; any other "
        "answer (or none) looks like a broken server.",
        "Answer a method you do not implement with error -32601 (Method not found).",
        f"{JSONRPC}#error_object (-32601 Method not found)",
        "lifecycle",
    ),
    Rule(
        "unknown-tool",
        W,
        PROBE,
        "tools/call of a tool that does not exist not answered with -32602",
        "The spec lists an unknown tool as a protocol error; a result (isError) tells the model the "
        "tool ran and failed, so it may retry it.",
        "Answer tools/call of an unknown name with JSON-RPC error -32602 (Invalid params).",
        f"{SPEC}/server/tools#error-handling (protocol errors: unknown tools)",
        "lifecycle",
    ),
    Rule(
        "capability-unimplemented",
        E,
        PROBE,
        "a declared capability whose methods answer -32601",
        "Clients call what the capabilities declare: a declared tools/prompts/resources/completions/"
        "logging capability that is not implemented fails in their UI.",
        "Declare only the capabilities whose methods you implement.",
        f"{SPEC}/basic/lifecycle#capability-negotiation",
        "lifecycle",
    ),
    Rule(
        "list-changed-undeclared",
        W,
        LIVE,
        "a */list_changed notification whose capability does not declare listChanged",
        "Clients subscribe to list changes only when listChanged is declared: an undeclared "
        "notification is ignored and the client keeps a stale list.",
        "Declare listChanged: true in the tools/prompts/resources capability when you send the notification.",
        f"{SPEC}/server/tools#list-changed-notification",
        "lifecycle",
    ),
    Rule(
        "logging-undeclared",
        E,
        LIVE,
        "notifications/message from a server that does not declare the logging capability",
        "Clients set up log handling (and logging/setLevel) from the capability: undeclared log "
        "messages are dropped, or rejected by strict SDK clients.",
        'Declare "logging": {} in the capabilities when the server sends log notifications.',
        f"{SPEC}/server/utilities/logging (servers that emit log message notifications MUST declare logging)",
        "lifecycle",
    ),
    Rule(
        "progress",
        E,
        LIVE,
        "progress that goes backwards, or names a token of no request in flight",
        "Progress bars and timeouts that reset on progress rely on it: a value that decreases or an "
        "unknown token is dropped or confuses the client.",
        "Increase progress with each notification, and send it only with the progressToken of a request still running.",
        f"{SPEC}/basic/utilities/progress (progress MUST increase; tokens MUST be of an active request)",
        "lifecycle",
    ),
    # -- 2026-07-28 ------------------------------------------------------------------------------
    Rule(
        "discover-result",
        E,
        PROBE,
        "2026-07-28: server/discover missing or its result invalid",
        "Modern clients find the era, versions and capabilities with server/discover, which servers MUST implement.",
        "Implement server/discover: supportedVersions, capabilities, _meta serverInfo.",
        f"{SPEC_MODERN}/basic/lifecycle (server/discover)",
        "modern",
    ),
    Rule(
        "result-type",
        E,
        LIVE,
        "2026-07-28: a result without a known resultType",
        "resultType tells a complete result from an input_required one: an unknown value is a result "
        "the client cannot use.",
        'Set resultType to "complete" or "input_required" (or a declared extension\'s value).',
        f"{SPEC_MODERN}/basic (resultType is required on every result)",
        "modern",
    ),
    Rule(
        "server-info-meta",
        W,
        LIVE,
        "2026-07-28: a result without serverInfo in _meta",
        "Without an initialize handshake, _meta serverInfo is how a client names the server.",
        "Put serverInfo {name, version} in each result's _meta (io.modelcontextprotocol/serverInfo).",
        f"{SPEC_MODERN}/basic (SEP-2575: results carry serverInfo in _meta)",
        "modern",
    ),
    Rule(
        "unsupported-version",
        E,
        PROBE,
        "2026-07-28: an unsupported protocol version not answered -32022 with data.supported",
        "The client retries with a version from data.supported: without it, it cannot recover.",
        "Answer a request whose _meta protocolVersion you do not support with -32022 and data {supported, requested}.",
        f"{SPEC_MODERN}/basic/versioning",
        "modern",
    ),
    # -- tools -------------------------------------------------------------------------------
    Rule(
        "tool-name-format",
        E,
        SURFACE,
        "a tool name that is not 1-128 of [A-Za-z0-9_.-]",
        "Clients refuse or rename tools outside this set: the Anthropic API and OpenAI take "
        '^[a-zA-Z0-9_-]{1,64/128}$, so a space, slash or accent drops the tool ("works in the inspector, '
        'no tools in Claude").',
        "Use 1-128 characters of A-Z a-z 0-9 _ . - (and keep under 64 for OpenAI and Gemini).",
        f"{SPEC}/server/tools#tool-names (SEP-986)",
        "tools",
    ),
    Rule(
        "tool-name-duplicate",
        E,
        SURFACE,
        "two tools with the same name",
        "A client keeps one of them (which one varies) or refuses the list: calls go to the wrong tool.",
        "Give every tool a unique name.",
        f"{SPEC}/server/tools#tool-names (names SHOULD be unique within a server)",
        "tools",
    ),
    Rule(
        "tool-description",
        W,
        SURFACE,
        "a tool without a description, or an empty one",
        "The model picks tools by their description: without one it guesses from the name, or never uses the tool.",
        "Describe what the tool does, when to use it and what it returns.",
        f"{SPEC}/server/tools#tool",
        "tools",
    ),
    Rule(
        "input-schema-type",
        E,
        SURFACE,
        'an inputSchema without "type": "object" at the top',
        "The schema says inputSchema is an object schema; Claude, OpenAI and Gemini reject other "
        "shapes and drop the tool (or the whole server's tools).",
        'Make inputSchema {"type": "object", "properties": {...}} (also for a tool without arguments).',
        f'{SPEC}/server/tools#tool (inputSchema: type "object")',
        "tools",
    ),
    Rule(
        "input-schema-invalid",
        E,
        SURFACE,
        "an inputSchema that is not a valid JSON Schema for its $schema "
        "(2020-12 by default): a wrong type, a bad pattern...",
        "Clients compile the schema to validate arguments or to build a form: an invalid one fails there, "
        "and the API providers reject the tool.",
        "Validate the schema against its dialect's metaschema; check patterns are regular expressions.",
        f"{SPEC}/basic#json-schema-usage (2020-12 is the default dialect)",
        "tools",
    ),
    Rule(
        "input-schema-required",
        W,
        SURFACE,
        "required names a property that is not defined",
        "The model cannot know what to put in a required argument it has no schema for; strict "
        "clients (OpenAI structured outputs) reject the schema.",
        "Define every required property under properties (or remove it from required).",
        "https://json-schema.org/understanding-json-schema/reference/object#required",
        "tools",
    ),
    Rule(
        "output-schema-invalid",
        E,
        SURFACE,
        "an outputSchema that is not a valid schema, or not of type object",
        "Clients validate structuredContent against it: an invalid outputSchema fails every call's result.",
        'Make outputSchema a valid JSON Schema with "type": "object".',
        f"{SPEC}/server/tools#output-schema",
        "tools",
    ),
    Rule(
        "tool-annotations",
        W,
        SURFACE,
        "contradictory or malformed annotations (readOnlyHint with destructiveHint...)",
        "Clients ask for confirmation from the hints: contradictory ones are resolved the unsafe way by some.",
        "A read-only tool is not destructive and idempotent by nature: drop destructiveHint (or readOnlyHint).",
        f"{SPEC}/server/tools#tool-annotations",
        "tools",
    ),
    Rule(
        "list-unstable",
        W,
        PROBE,
        "two listings in a row differ with no list_changed",
        "Descriptions or schemas that change under the user are the 'rug pull' pattern: what was "
        "approved is not what runs; clients that cache lists act on stale ones.",
        "Keep lists stable; when they change, send notifications/*/list_changed (and declare listChanged).",
        f"{SPEC}/server/tools#list-changed-notification",
        "tools",
    ),
    Rule(
        "pagination",
        E,
        PROBE,
        "a cursor that repeats, is not a string, or never ends",
        "Clients follow nextCursor until it is absent: a loop hangs them or grows their memory.",
        "Return nextCursor only when there is a next page, and a new one each time.",
        f"{SPEC}/server/utilities/pagination",
        "tools",
    ),
    Rule(
        "tool-list-tokens",
        W,
        SURFACE,
        "the tool list, as a model receives it, is over the token budget",
        "Every tool's name, description and schema is sent to the model on each turn: a list of tens of "
        "thousands of tokens costs money, context and accuracy (clients cap tool counts for this).",
        "Shorten descriptions, drop rarely used tools or split the server; --token-budget N sets the budget.",
        "https://docs.anthropic.com/en/docs/agents-and-tools/tool-use/overview#pricing",
        "tools",
    ),
    Rule(
        "client-compat",
        W,
        SURFACE,
        "what a specific client refuses or rewrites (names, schema keywords, counts)",
        "Each client has its own limits on tool names, schema keywords and tool counts: a tool that "
        "breaks one is silently missing there.",
        "See the finding: it names the client and its limit.",
        "each finding names its client and the source: documentation, code at a commit, or the client's "
        "tracker (docs/checks.md: Client compatibility)",
        "tools",
    ),
    Rule(
        "structured-content",
        E,
        PROBE,
        "--call: structuredContent that does not match the tool's outputSchema (or is missing)",
        "Clients validate structuredContent against outputSchema and reject a result that fails.",
        "Return structuredContent matching outputSchema on every successful call (and its JSON as a text block).",
        f"{SPEC}/server/tools#structured-content (servers MUST provide structured results that conform)",
        "tools",
    ),
    # -- resources, prompts, completion ----------------------------------------------------------
    Rule(
        "resource-read",
        E,
        PROBE,
        "a listed resource that cannot be read (the first 20 are read)",
        "Clients offer listed resources to the user and the model: one that fails to read is a dead link.",
        "List only resources that resources/read serves, with their exact URI.",
        f"{SPEC}/server/resources#reading-resources",
        "resources",
    ),
    Rule(
        "uri-template",
        E,
        SURFACE,
        "a resource template that is not a valid RFC 6570 URI template",
        "Clients expand templates to read resources and complete their variables: an invalid one cannot be used.",
        "Write the template in RFC 6570 syntax: {var}, {+var}, {?a,b}, {/path*}.",
        "https://www.rfc-editor.org/rfc/rfc6570",
        "resources",
    ),
    Rule(
        "content",
        E,
        LIVE,
        "content blocks that break the schema's promises (base64 that is not base64, "
        "image or audio without mimeType, unknown types)",
        "Clients decode blobs and images by their mimeType: a bad block is dropped, or fails the whole result.",
        "Base64-encode blobs and image/audio data; give image and audio blocks their mimeType; use the "
        "content types of the revision.",
        f"{SPEC}/server/tools#tool-result",
        "resources",
    ),
    Rule(
        "prompt-get",
        E,
        PROBE,
        "a listed prompt without required arguments cannot be got",
        "Clients show listed prompts as commands: one that fails when picked is broken for the user.",
        "Make prompts/get work for every listed prompt given its required arguments.",
        f"{SPEC}/server/prompts#getting-a-prompt",
        "prompts",
    ),
    Rule(
        "completion",
        E,
        PROBE,
        "completion/complete with more than 100 values, or the wrong shape",
        "Clients show completions as they are typed: more than 100 values breaks the spec's bound, a "
        "wrong shape is dropped.",
        "Return {completion: {values: [at most 100 strings], total?, hasMore?}}.",
        f"{SPEC}/server/utilities/completion (values MUST NOT exceed 100 items)",
        "completion",
    ),
    # -- Streamable HTTP (built on this engine: rules registered here, probes in checks/http) ----
    Rule(
        "http-notification-status",
        E,
        HTTP,
        "a notification or response POST not answered 202 with no body",
        "Clients treat anything but 202 as a failed send.",
        "Answer POSTs that carry only notifications or responses with 202 Accepted and no body.",
        f"{SPEC}/basic/transports#sending-messages-to-the-server",
        "http",
    ),
    Rule(
        "http-get",
        W,
        HTTP,
        "GET answered with something else than an SSE stream or 405",
        "Clients open the GET stream for server messages: another answer is an error they report.",
        "Answer GET with text/event-stream, or 405 Method Not Allowed when you offer no stream.",
        f"{SPEC}/basic/transports#listening-for-messages-from-the-server",
        "http",
    ),
    Rule(
        "http-origin",
        E,
        HTTP,
        "a request with a foreign Origin (and, for a local server, Host) is served",
        "DNS rebinding: a web page can reach a server on localhost through the browser.",
        "Validate the Origin header: answer 403 to an origin you do not expect.",
        f"{SPEC}/basic/transports#security-warning (servers MUST validate the Origin header)",
        "http",
    ),
    Rule(
        "http-session-id",
        W,
        HTTP,
        "a session id that is not visible ASCII, or is guessable (short, sequential)",
        "A guessable session id lets another client act in the session.",
        "Use a cryptographically random id (a UUID or 128+ random bits), visible ASCII only.",
        f"{SPEC}/basic/transports#session-management",
        "http",
    ),
    Rule(
        "http-session-unknown",
        E,
        HTTP,
        "an unknown Mcp-Session-Id not answered 404",
        "404 tells a client its session ended so it starts a new one; another status leaves it stuck.",
        "Answer a request with an unknown or terminated session id with 404 Not Found.",
        f"{SPEC}/basic/transports#session-management (the server MUST respond with 404)",
        "http",
    ),
    Rule(
        "http-content-type",
        E,
        HTTP,
        "a reply whose Content-Type is not application/json or text/event-stream",
        "Clients read the body by its Content-Type: another one is not read.",
        "Reply with Content-Type application/json or text/event-stream.",
        f"{SPEC}/basic/transports#sending-messages-to-the-server",
        "http",
    ),
    Rule(
        "http-protocol-version",
        E,
        HTTP,
        "the MCP-Protocol-Version header mishandled (an invalid one not answered 400)",
        "Clients send the negotiated version on every request; a server that serves a version it does not "
        "speak answers in the wrong revision instead of letting the client fall back.",
        "Answer an unsupported or invalid MCP-Protocol-Version header with 400 Bad Request.",
        f"{SPEC}/basic/transports#protocol-version-header (a request with an invalid or unsupported "
        "MCP-Protocol-Version: the server MUST respond with 400 Bad Request)",
        "http",
    ),
    # -- authorization ------------------------------------------------------------------
    Rule(
        "oauth-step",
        E,
        PROBE,
        "a step of the OAuth flow (metadata, registration, authorization, token) broke the spec",
        "Each client follows the authorization spec to the letter: metadata at the wrong place, a "
        "wrong issuer, no PKCE S256 or a token response it cannot read stops every client at that "
        "step (an error); what a client works around is a warning.",
        "The finding names the step, the check and its source (RFC 9728, RFC 8414, OAuth 2.1); the "
        "Auth view (0 in the TUI) shows the step's whole request and response.",
        f"{SPEC}/basic/authorization",
        "auth",
    ),
    # -- compatibility with an earlier version -------------------------------------------
    Rule(
        "surface-breaking",
        E,
        SURFACE,
        "--baseline FILE: a change since the snapshot breaks clients (or its impact is unknown)",
        "A removed or renamed tool, prompt or argument, a newly required property or a narrowed type "
        "breaks every host, prompt and script that used the old surface, with no error until then.",
        "Keep the old name or argument working (add, don't rename or narrow), or make a new major "
        "version and update the snapshot on purpose (mcp-inspector snapshot -o FILE).",
        "mcp-inspector diff (the classification is in docs/surface.md)",
        "tools",
    ),
    # -- both eras ------------------------------------------------------------------------
    Rule(
        "era-mismatch",
        W,
        PROBE,
        "--era both: the legacy and the 2026-07-28 era disagree about the same surface",
        "A client of one era sees other tools, resources or prompts than a client of the other.",
        "Serve the same tools, resources and prompts in both eras (one registry behind both).",
        f"{SPEC_MODERN}/basic/versioning",
        "modern",
    ),
]

RULES: dict[str, Rule] = {rule.id: rule for rule in _RULES}
assert len(RULES) == len(_RULES), "duplicate rule id"

GROUPS = ("stdio", "lifecycle", "modern", "tools", "resources", "prompts", "completion", "http", "auth")


def rule(rule_id: str) -> Rule:
    """The rule of an id (KeyError for an unknown one: a typo in a rule is a bug)."""
    return RULES[rule_id]


def unknown_ids(ids: list[str]) -> list[str]:
    """The ids of ``ids`` that name no rule (``--ignore`` typos)."""
    return [rule_id for rule_id in ids if rule_id not in RULES]


def finding(rule_id: str, message: str, *, severity: Severity | None = None, **fields: Any) -> Finding:
    """A finding of a registered rule, its hint and spec from the registry unless given."""
    rule = RULES[rule_id]
    fields.setdefault("hint", rule.fix)
    fields.setdefault("spec", rule.source)
    return Finding(rule_id, severity or rule.severity, message, **fields)
