"""The server check: one rule engine for ``mcp-inspector check``, live checks and recordings.

Modules:

- ``model``: :class:`Finding` (rule, severity, message, where, hint, spec, evidence, era, seq,
  exchange), :class:`Rule`, :class:`Severity`, :class:`RuleKind`.
- ``catalog``: the registry ``RULES`` (id -> Rule: severity policy, kind, title, why, fix, source,
  group, implemented) and ``finding(rule_id, message, **fields)`` (hint and spec from the rule).
- ``frames``: the seams: :class:`LiveState`, :class:`FrameRule`, :class:`DeferredCheck`, ``Emit``.
- ``live``: :class:`LiveChecker`; ``frame_rules`` and ``schema_check`` its rules.
- ``surface``: rules on what the server listed (``tool_findings``, ``template_findings``).
- ``probes`` / ``probes_surface``: the active probes (:class:`Probe`, :class:`ProbeContext`,
  :class:`CheckOptions`); ``runner``: ``run_check`` and :class:`CheckReport`.
- ``docs``: the rule table of docs/checks.md from the registry.

Using it from a front end (the TUI's Checks view, an HTTP bench):

- Live: ``checker = LiveChecker(store, transport="stdio"|"http", ignore=ids, on_finding=cb)``,
  then ``store.add_listener(checker)`` before the session connects (so the handshake is judged).
  ``observe`` is cheap (rules are indexed by direction, kind, method and whether the rpc layer
  marked a problem); the schema/content checks wait in a bounded queue until
  ``checker.drain(budget=N)`` (returns what is left): call it on the event loop in small budgets
  (a frame costs 5-500 us) from a timer, not from another thread (findings are not locked).
  ``schema_check.preload()`` imports the models in a thread first. Results:
  ``checker.findings`` (in order), ``checker.counts`` (by Severity), ``checker.by_seq`` (seq ->
  findings, for marking the traffic log), ``checker.pending``, ``checker.skipped``.
- A new frame rule: a class with ``observe(entry, state, emit)`` and optional ``kinds`` /
  ``methods`` / ``problem_only``; ``checker.add_rule(rule)``. Emit ``catalog.finding(...)`` with
  ``seq=entry.seq``; the checker adds the era tag and, for HTTP, the exchange.
- Active: ``report = await run_check(session, checker, CheckOptions(...), budget=s,
  probes=default_probes(disruptive=False))`` on a connected McpSession (``disruptive=False``
  leaves out the non-JSON line and the stdin close, for a session the user keeps). A new probe:
  a class with ``rules`` (ids) and ``async run(ctx: ProbeContext)``, ``ctx.add(finding(...))``;
  pass ``probes=[*default_probes(), MyProbe()]``. Register every new id in ``catalog._RULES``
  (then ``python scripts/check_rules_table.py``).
"""
