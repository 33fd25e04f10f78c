"""The demo's prompts (``prompts/list`` and ``prompts/get``)."""

from __future__ import annotations

from .errors import INVALID_PARAMS, RpcError

PROMPTS = [
    {
        "name": "summarize",
        "title": "Summarize text",
        "description": "Ask the model to summarize a piece of text, optionally in a given style.",
        "arguments": [
            {"name": "text", "title": "Text", "description": "The text to summarize.", "required": True},
            {
                "name": "style",
                "title": "Style",
                "description": "How to summarize (completion offers suggestions).",
                "required": False,
            },
        ],
    },
    {
        "name": "code_review",
        "title": "Review code",
        "description": "A two-message conversation asking for a code review.",
        "arguments": [
            {
                "name": "language",
                "title": "Language",
                "description": "Programming language (completion offers suggestions).",
                "required": True,
            },
            {"name": "code", "title": "Code", "description": "The code to review.", "required": True},
        ],
    },
    {
        "name": "explain_error",
        "title": "Explain an error",
        "description": "Ask what an error means. Both arguments complete, and the suggestions for "
        "`error` narrow by the `language` you chose (completion with context.arguments).",
        "arguments": [
            {
                "name": "language",
                "title": "Language",
                "description": "Programming language (complete it first).",
                "required": True,
            },
            {
                "name": "error",
                "title": "Error",
                "description": "The error name or message; completion suggests errors of the chosen language.",
                "required": True,
            },
        ],
    },
]


def list_prompts() -> list[dict]:
    return PROMPTS


def get_prompt(name: object, arguments: object) -> dict:
    """Render a prompt; unknown names and missing arguments are -32602."""
    prompt = next((p for p in PROMPTS if p["name"] == name), None)
    if prompt is None:
        raise RpcError(INVALID_PARAMS, f"Unknown prompt: {name}")
    if arguments is None:
        arguments = {}
    if not isinstance(arguments, dict) or not all(isinstance(v, str) for v in arguments.values()):
        raise RpcError(INVALID_PARAMS, "Prompt arguments must be an object of strings")
    missing = [a["name"] for a in prompt["arguments"] if a["required"] and not arguments.get(a["name"])]
    if missing:
        raise RpcError(INVALID_PARAMS, f"Missing required argument(s): {', '.join(missing)}", {"missing": missing})
    if name == "explain_error":
        language, error = arguments["language"], arguments["error"]
        return {
            "description": prompt["description"],
            "messages": [
                _user(
                    f"In {language}, what does the error {error!r} mean, what usually causes it, "
                    f"and how do I fix it? Give a short example."
                )
            ],
        }
    if name == "summarize":
        style = arguments.get("style") or "concise"
        messages = [_user(f"Please write a {style} summary of the following text:\n\n{arguments['text']}")]
    else:
        language, code = arguments["language"], arguments["code"]
        messages = [
            _user(f"Please review this {language} code for bugs, style and clarity:\n\n```{language}\n{code}\n```"),
            {
                "role": "assistant",
                "content": {
                    "type": "text",
                    "text": f"Sure. I'll go through the {language} code and list issues by severity.",
                },
            },
        ]
    return {"description": prompt["description"], "messages": messages}


def _user(text: str) -> dict:
    return {"role": "user", "content": {"type": "text", "text": text}}
