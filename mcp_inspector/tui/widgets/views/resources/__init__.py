"""The parts of the Resources view (``widgets/views/resources_view.py``): the list of resources and
templates (``listing``), the contents of a read (``contents``) and the template form
(``template_form``)."""
