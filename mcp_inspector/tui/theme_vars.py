"""App-specific theme variables and their defaults.

Every theme (built-in Textual ones included) gets these, so widget CSS can use
``$traffic-in`` and friends; a theme file may override any of them.
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
