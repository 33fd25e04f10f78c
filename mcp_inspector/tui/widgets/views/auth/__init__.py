"""The Auth view's parts (the view itself is ``views/auth_view.py``)."""
