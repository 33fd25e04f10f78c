"""Themes: the bundled theme files' loader and the theme variables the CSS uses."""
