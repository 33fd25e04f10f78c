"""App-specific theme variables and their defaults.

Every theme (built-in Textual ones included) gets these, so widget CSS can use
``$traffic-in`` and friends; a theme file may override any of them. A light theme
that does not gets the light defaults (the dark ones, pastel, are unreadable on white).
"""

THEME_VARIABLE_DEFAULTS: dict[str, str] = {
    "traffic-out": "#5fafff",  # inspector -> server
    "traffic-in": "#87d787",  # server -> inspector
    "traffic-local": "#a8a8a8",  # process events, notes
    "traffic-stderr": "#d7af5f",
    "traffic-error": "#ff5f5f",  # JSON-RPC errors, invalid frames
    "traffic-warning": "#ffaf00",  # late replies, protocol warnings
    "traffic-notification": "#d787d7",
    "tool-added": "#87d787",
    "tool-removed": "#ff5f5f",
    "tool-changed": "#ffaf00",
}

#: the same for light themes (the values of the shipped inspector-light)
LIGHT_THEME_VARIABLE_DEFAULTS: dict[str, str] = {
    "traffic-out": "#005fd7",
    "traffic-in": "#008700",
    "traffic-local": "#6c6c6c",
    "traffic-stderr": "#875f00",
    "traffic-error": "#d70000",
    "traffic-warning": "#af5f00",
    "traffic-notification": "#8700af",
    "tool-added": "#008700",
    "tool-removed": "#d70000",
    "tool-changed": "#af5f00",
    # the tool list's annotation chips (RO DESTR IDEM OPEN): on a dark theme the theme's own
    # $success $error $secondary $warning; on a light one these (a light theme's are pale on white)
    "badge-ro": "#006400",
    "badge-destr": "#b00000",
    "badge-idem": "#6a0096",
    "badge-open": "#8a4500",
}


def theme_variable_defaults(dark: bool) -> dict[str, str]:
    """The defaults for a dark or a light theme (a theme's own ``variables`` win over them)."""
    return dict(THEME_VARIABLE_DEFAULTS if dark else LIGHT_THEME_VARIABLE_DEFAULTS)
