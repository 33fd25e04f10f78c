"""JSON Schema: resolving, validating, and turning schemas into form specs (tool arguments, elicitation)."""
