"""Small modal dialogs: asking for a path (save as), the request timeout, the roots editor, the
server picker (F7), help (F1), the OAuth print-mode prompt, a tool's detail and the tool-list diff."""
