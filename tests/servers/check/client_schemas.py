"""Tool schemas that real clients refuse, strip or rewrite, though valid JSON Schema: a top-level
anyOf (Claude), an array without items (GitHub Copilot), keywords Copilot strips for GPT-4 models,
a const the Gemini Schema object cannot carry, a recursive $ref (gemini-cli), an open object
(OpenAI strict mode), a type list (Cursor) (draws client-compat).

``python3 client_schemas.py NAME`` serves one of them (with ``add``), ``compatible`` a rich schema
that draws none; tests/core/test_client_compat.py reads :data:`SCHEMAS` directly.
"""

import sys

from base import Server, run


def tool(name, schema):
    return {"name": name, "description": f"A tool whose schema has {name.replace('_', ' ')}.", "inputSchema": schema}


def closed(properties, **more):
    return {"type": "object", "properties": properties, "additionalProperties": False, **more}


TEXT = {"type": "string"}
# tool name -> (its inputSchema, the SCHEMA_RULES ids it draws)
SCHEMAS = {
    "a_top_level_anyof": (
        closed({"a": TEXT, "b": TEXT}, anyOf=[{"required": ["a"]}, {"required": ["b"]}]),
        {"top-level-combinator", "top-level-dropped", "openai-strict"},
    ),
    "an_array_without_items": (closed({"tags": {"type": "array"}}), {"array-without-items"}),
    "a_max_length": (closed({"name": {"type": "string", "maxLength": 40}}), {"gpt4-stripped"}),
    "a_const": (closed({"kind": {"const": "ticket"}}), {"gemini-parameters"}),
    "a_recursive_ref": (
        closed(
            {"root": {"$ref": "#/$defs/Node"}},
            **{"$defs": {"Node": closed({"children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}})}},
        ),
        {"recursive-ref"},
    ),
    "an_open_object": (
        closed({"labels": {"type": "object", "properties": {"a": TEXT}, "additionalProperties": True}}),
        {"openai-strict"},
    ),
    "a_type_list": (closed({"note": {"type": ["string", "null"]}}), {"type-list"}),
}
COMPATIBLE = closed(
    {
        "tags": {"type": "array", "items": TEXT, "description": "Labels to attach."},
        "mode": {"type": "string", "enum": ["fast", "careful"]},
        "target": {"anyOf": [TEXT, {"type": "integer"}]},
        "point": {"$ref": "#/$defs/Point"},
    },
    required=["mode"],
    **{"$defs": {"Point": closed({"x": {"type": "number"}, "y": {"type": "number"}})}},
)


class ClientSchemas(Server):
    only: str | None = None

    def tools(self):
        add = super().tools()[0]
        if self.only == "compatible":
            return [add, tool("a_compatible_schema", COMPATIBLE)]
        chosen = [self.only] if self.only else list(SCHEMAS)
        return [add] + [tool(name, SCHEMAS[name][0]) for name in chosen]


if __name__ == "__main__":
    ClientSchemas.only = sys.argv[1] if len(sys.argv) > 1 else None
    run(ClientSchemas)
