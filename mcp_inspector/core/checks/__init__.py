"""The server check: one rule engine for ``mcp-inspector check``, live checks and recordings.

- ``model``: :class:`Finding`, :class:`Rule`, :class:`Severity`.
- ``catalog``: the registry :data:`RULES` (every rule id, severity, why, fix, source) and ``finding()``.
- ``frames`` / ``live``: the live engine (:class:`LiveChecker`, a traffic store listener) and the
  :class:`FrameRule` / :class:`DeferredCheck` interfaces; ``frame_rules`` and ``schema_check`` the rules.
- ``surface``: rules on what the server listed (tools, templates); ``probes``: the active probes
  the check command runs (:class:`Probe`), and ``runner``: the whole check over a session.
"""
