"""The Auth view (``view.py``) and its parts (``step_text.py``: how a step reads)."""
