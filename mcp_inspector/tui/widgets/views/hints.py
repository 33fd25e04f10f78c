"""The one-line key hints of the Resources and Prompts views: ``key: what`` joined by `` · ``,
with each key as the user remapped it (config.toml [keymap], by binding id)."""

from __future__ import annotations


def hint_text(keymap: dict[str, str], hint: tuple, width: int = 0, subscribed: bool = False) -> str:
    """The keys in one line, as the user remapped them; as many as fit ``width`` (0: all). ``hint``:
    (binding id or "", default key, what). ``subscribed``: s unsubscribes the resource it acts on."""
    parts = [
        f"{keymap.get(binding_id, key) if binding_id else key}: "
        f"{'unsubscribe' if subscribed and binding_id == 'resources.subscribe' else what}"
        for binding_id, key, what in hint
    ]
    while width and len(parts) > 1 and len(" · ".join(parts)) > width:
        parts.pop()
    return " · ".join(parts)
