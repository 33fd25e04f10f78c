"""A ``prompts/get`` result: its description and messages rendered by role, every content
type (text, image, audio, embedded resource, resource_link, anything else as JSON); keys
to copy the messages as JSON and save them."""

from __future__ import annotations

import json
from typing import Any

from rich.text import Text
from textual import work
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.widget import Widget
from textual.widgets import Static

from .....core.session.results import describe_block
from ....clipboard import copy_text
from ....messages import OpenResource
from ....text.traffic_text import clean
from ...result.files import save_new_file
from ...result.media import MediaBlock, annotation_line
from ...result.text_body import ICONS, text_body

ROLES = ("user", "assistant")
MAX_MESSAGES = 200  # messages rendered; the rest are counted (c and s still take them all)


def check_result(result: Any) -> tuple[list[Any], list[str]]:
    """The messages of a prompts/get result and what is wrong with its shape."""
    problems: list[str] = []
    if not isinstance(result, dict):
        return [], [f"the result is not an object ({type(result).__name__})"]
    messages = result.get("messages")
    if messages is None:
        return [], ["the result has no `messages` array"]
    if not isinstance(messages, list):
        return [], [f"`messages` must be an array, got {type(messages).__name__}"]
    description = result.get("description")
    if description is not None and not isinstance(description, str):
        problems.append("`description` is not a string")
    return messages, problems


class OpenableBlock(Vertical, can_focus=True):
    """A resource_link or an embedded text resource: enter opens it in the Resources view
    (a link is read there; an embedded resource is shown as it came)."""

    BINDINGS = [Binding("enter", "open_resource", "Open in Resources", id="prompts.open-resource")]

    def __init__(self, uri: str, contents: dict[str, Any] | None, widgets: list[Widget], classes: str) -> None:
        super().__init__(*widgets, classes=f"block openable {classes}")
        self.uri = uri
        self.contents = contents

    def action_open_resource(self) -> None:
        self.post_message(OpenResource(self.uri, self.contents))

    def on_click(self) -> None:
        self.focus()


def link_block(block: dict[str, Any], label: str) -> OpenableBlock:
    lines = Text()
    for key in ("uri", "name", "title", "mimeType", "description", "size"):
        if key in block:
            lines.append(f"{key}: ", style="bold")
            lines.append(f"{clean(str(block[key]))}\n")
    lines.rstrip()
    widgets: list[Widget] = [
        Static(
            Text(f"{ICONS['resource_link']} {label} resource link · enter opens it in Resources", style="bold"),
            classes="block-header",
        ),
        Static(lines, classes="block-text"),
        *annotation_line(block),
    ]
    return OpenableBlock(str(block["uri"]), None, widgets, "link-block")


def content_widgets(index: int, content: Any, stem: str) -> list[Widget]:
    """The widgets showing one message's content block."""
    info = describe_block(index, content)
    block = info.block
    label = f"#{index}"
    if info.type in ("image", "audio") or (
        info.type == "resource" and not info.problem and "blob" in block["resource"]
    ):
        return [MediaBlock(info, stem)]
    widgets: list[Widget] = []
    if info.type == "text" and not info.problem:
        widgets.extend(annotation_line(block))
        body, _ = text_body(block["text"])
        widgets.extend(body)
    elif info.type == "resource_link" and not info.problem:
        return [link_block(block, label)]
    elif info.type == "resource" and not info.problem:
        resource = block["resource"]
        widgets.append(
            Static(
                Text(
                    f"{ICONS['resource']} {label} embedded resource · {clean(str(resource.get('uri')))} · "
                    f"{resource.get('mimeType') or 'no mimeType'} · {len(resource['text']):,} characters"
                    " · enter opens it in Resources",
                    style="bold",
                ),
                classes="block-header",
            )
        )
        widgets.extend(annotation_line(block))
        body, _ = text_body(
            resource["text"], language="json" if "json" in str(resource.get("mimeType") or "") else None
        )
        widgets.extend(body)
        return [OpenableBlock(str(resource["uri"]), resource, widgets, "embedded-block")]
    else:
        widgets.append(
            Static(Text(f"{ICONS['unknown']} {label} {info.type} content", style="bold"), classes="block-header")
        )
        if info.problem:
            widgets.append(Static(Text(f"⚠ {info.problem}"), classes="block-problem"))
        body, _ = text_body(json.dumps(block, indent=2, ensure_ascii=False), language="json")
        widgets.extend(body)
    return widgets


def message_widget(index: int, message: Any, stem: str) -> Widget:
    """One message: its role, then its content (one block, or a list of them, leniently)."""
    if not isinstance(message, dict):
        body, _ = text_body(json.dumps(message, ensure_ascii=False), language="json")
        return Vertical(
            Static(Text(f"⚠ message {index} is not an object"), classes="block-problem"),
            *body,
            classes="prompt-message role-unknown",
        )
    role = message.get("role")
    known = role in ROLES
    header = Text(f"{role if isinstance(role, str) else '?'}", style="bold")
    header.append(f"  message {index}", style="dim")
    widgets: list[Widget] = [Static(header, classes="message-role")]
    if not known:
        widgets.append(Static(Text(f"⚠ role must be user or assistant, got {role!r}"), classes="block-problem"))
    content = message.get("content")
    blocks = content if isinstance(content, list) else [content]
    if content is None:
        widgets.append(Static(Text("⚠ the message has no `content`"), classes="block-problem"))
        blocks = []
    for position, block in enumerate(blocks):
        widgets.extend(content_widgets(position if isinstance(content, list) else index, block, stem))
    return Vertical(*widgets, classes=f"prompt-message role-{role if known else 'unknown'}")


class PromptMessages(VerticalScroll, can_focus=True):
    """The got prompt: status line, description, messages. ``c`` copies, ``s`` saves."""

    BINDINGS = [
        Binding("c", "copy_messages", "Copy JSON", id="prompts.copy", tooltip="Copy the messages as JSON"),
        Binding("s", "save_messages", "Save", id="prompts.save", tooltip="Save the messages as JSON"),
    ]
    DEFAULT_CSS = """
    PromptMessages { height: 1fr; padding: 0 1; }
    PromptMessages:focus { background: $boost; }
    PromptMessages .prompt-message {
        height: auto;
        margin-top: 1;
        padding: 0 0 0 1;
        border-left: thick $panel-lighten-2;
    }
    PromptMessages .role-user { border-left: thick $primary; }
    PromptMessages .role-assistant { border-left: thick $success; }
    PromptMessages .role-unknown { border-left: thick $warning; }
    PromptMessages .message-role { height: 1; }
    PromptMessages .role-user > .message-role { color: $primary; }
    PromptMessages .role-assistant > .message-role { color: $success; }
    PromptMessages .prompt-description { height: auto; color: $text-muted; }
    PromptMessages .block-header { height: auto; }
    PromptMessages .block-meta { height: auto; color: $text-muted; }
    PromptMessages .block-problem { height: auto; color: $text-warning; }
    PromptMessages .block-text { height: auto; }
    PromptMessages .block-text-area { height: auto; max-height: 20; }
    PromptMessages .truncated-note { height: auto; color: $text-warning; }
    PromptMessages .media-block, PromptMessages .openable { height: auto; }
    PromptMessages .media-block:focus, PromptMessages .openable:focus { background: $boost; }
    PromptMessages .media-actions { height: auto; }
    """

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.prompt_name: str | None = None
        self.result: Any = None
        self.messages: list[Any] = []
        self.saved_path: Any = None

    def show_result(self, name: str, result: Any) -> list[str]:
        """Render a prompts/get result; returns the problems with its shape."""
        self.prompt_name, self.result = name, result
        messages, problems = check_result(result)
        self.messages = messages
        widgets: list[Widget] = []
        for problem in problems:
            widgets.append(Static(Text(f"⚠ {problem}"), classes="block-problem"))
        if isinstance(result, dict) and isinstance(result.get("description"), str):
            widgets.append(Static(Text(clean(result["description"])), classes="prompt-description"))
        stem = f"prompt-{name}"
        for index, message in enumerate(messages[:MAX_MESSAGES]):
            widgets.append(message_widget(index, message, stem))
        if len(messages) > MAX_MESSAGES:
            widgets.append(
                Static(
                    f"showing the first {MAX_MESSAGES} of {len(messages):,} messages · c copies and s saves them all",
                    classes="truncated-note",
                )
            )
        if problems and not messages:
            body, _ = text_body(json.dumps(result, indent=2, ensure_ascii=False, default=str), language="json")
            widgets.extend(body)
        self._replace(widgets)
        return problems

    def show_text(self, text: Text | str, classes: str = "block-meta") -> None:
        """A message instead of a result (pending, an error...)."""
        self.result, self.messages = None, []
        self._replace([Static(text if isinstance(text, Text) else Text(text), classes=classes)])

    def _replace(self, widgets: list[Widget]) -> None:
        self.remove_children()
        if widgets:
            self.mount_all(widgets)
        self.scroll_home(animate=False)

    def messages_json(self) -> str:
        return json.dumps(self.messages, indent=2, ensure_ascii=False)

    def action_copy_messages(self) -> None:
        if self.result is None:
            self.notify("No prompt messages yet: get a prompt first (ctrl+s).", severity="warning")
            return
        copy_text(self.app, self.messages_json(), "the messages")

    def action_save_messages(self) -> None:
        if self.result is None:
            self.notify("No prompt messages yet: get a prompt first (ctrl+s).", severity="warning")
            return
        self._save(self.messages_json(), f"prompt-{self.prompt_name}-messages")

    @work(thread=True, group="prompt-files", exit_on_error=False)
    def _save(self, text: str, stem: str) -> None:
        save_new_file(self, text.encode, stem, ".json", "the messages")
