"""Forms: a tool's form from its inputSchema (schema_form.py and fields/), the elicitation form, and
the input with completion used by prompt and template forms."""
