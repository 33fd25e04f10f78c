"""The answering screens: what the inspector shows when a server asks the client something
(a legacy server->client request or a 2026-07-28 MRTR input request, alike).

``base.ServerRequestScreen`` is the frame (title, which round of which call asks, the key
hints, Accept/Decline/Cancel); ``ServerRequestScreen(method, params)`` builds the right one:
``elicitation.FormScreen`` / ``elicitation.RawScreen``, ``url_elicitation.UrlScreen``,
``sampling.SamplingScreen``. ``url_required.UrlRequiredScreen`` answers a ``-32042`` error,
``rules.SamplingRulesScreen`` lists the saved sampling auto-answers."""
