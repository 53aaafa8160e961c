"""Widgets for messages of a resumed session: each message becomes one finished widget."""

from __future__ import annotations

from typing import Any

from textual.widget import Widget
from textual.widgets import Static

from agent_tui.protocol.events import ToolCallReady, ToolFinished
from agent_tui.ui.widgets.chat import UserMessage, render_markdown
from agent_tui.ui.widgets.tool_blocks import ToolBlock, tool_block_for


def _result_text(block: dict[str, Any]) -> str:
    content = block.get("content", "")
    if isinstance(content, list):
        return "".join(c.get("text", "") for c in content if isinstance(c, dict))
    return str(content)


def history_widgets(messages: list[dict[str, Any]]) -> list[Widget]:
    widgets: list[Widget] = []
    blocks: dict[str, ToolBlock] = {}
    for message in messages:
        content = message.get("content")
        if isinstance(content, str):
            content = [{"type": "text", "text": content}]
        for block in content or []:
            kind = block.get("type")
            if kind == "text" and block.get("text", "").strip():
                if message["role"] == "user":
                    widgets.append(UserMessage(block["text"]))
                else:
                    widgets.append(
                        Static(render_markdown(block["text"]), classes="message assistant")
                    )
            elif kind == "tool_use":
                tool = tool_block_for(block["id"], block.get("name", ""))
                tool.handle(
                    ToolCallReady(0, block["id"], block.get("name", ""), block.get("input") or {})
                )
                blocks[block["id"]] = tool
                widgets.append(tool)
            elif kind == "tool_result" and block.get("tool_use_id") in blocks:
                text = _result_text(block)
                first = text.strip().splitlines()[0][:80] if text.strip() else "done"
                blocks[block["tool_use_id"]].handle(
                    ToolFinished(
                        block["tool_use_id"],
                        "",
                        bool(block.get("is_error")),
                        first,
                        0.0,
                        text[:2000],
                    )
                )
    return widgets
