"""The Prompts view (``view.py``) and its parts: the prompt list and the got prompt's messages."""
