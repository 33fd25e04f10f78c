"""The Resources view (``view.py``) and its parts: the list of resources and
templates (``listing``), the contents of a read (``contents``) and the template form
(``template_form``)."""
