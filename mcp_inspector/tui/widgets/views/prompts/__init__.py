"""The Prompts view's parts: the prompt list and the got prompt's messages (see prompts_view.py)."""
