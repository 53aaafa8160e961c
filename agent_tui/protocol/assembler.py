"""The content-block state machine: raw Messages API stream events in, domain events out.

Input events are the plain dicts of the wire JSON (providers convert SDK objects). Text and tool
input are collected as lists of chunks and joined once when the block stops, so assembling a
block is linear in its length. Unknown event, block and delta types are skipped for the UI but
the block is kept verbatim in the message, so it is sent back to the API unchanged.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from agent_tui.protocol.events import (
    BlockFinished,
    Event,
    MessageFinished,
    MessageStarted,
    SearchQueryUpdate,
    SearchResultsReceived,
    TextDelta,
    ThinkingDelta,
    ToolCallReady,
    ToolCallStarted,
    ToolInputDelta,
    Usage,
)
from agent_tui.protocol.partial_json import PartialStringField

TOOL_BLOCKS = ("tool_use", "server_tool_use")


class StreamError(Exception):
    """The stream itself reported an error (`event: error`) or broke its own rules fatally."""

    def __init__(self, message: str, kind: str = "api_error") -> None:
        super().__init__(message)
        self.kind = kind


@dataclass(slots=True)
class _Block:
    """A content block being assembled: its start, and its text, signature and citations so far."""

    start: dict[str, Any]
    chunks: list[str] = field(default_factory=list)
    signature: list[str] = field(default_factory=list)
    citations: list[dict[str, Any]] = field(default_factory=list)
    query: PartialStringField | None = None
    done: bool = False

    @property
    def type(self) -> str:
        return str(self.start.get("type", ""))


class StreamAssembler:
    """Feed raw events with `feed()`; read the finished message from `content`, `stop_reason`."""

    def __init__(self) -> None:
        self._blocks: dict[int, _Block] = {}
        self._finished: dict[int, dict[str, Any]] = {}
        self._queries: dict[str, str] = {}  # server_tool_use id -> query (for result events)
        self._usage: dict[str, Any] = {}
        self.message_id = ""
        self.model = ""
        self.stop_reason: str | None = None
        self.stop_sequence: str | None = None
        self.started = False
        self.stopped = False
        #: protocol oddities seen and tolerated (a delta for an unknown block, a double stop, …)
        self.anomalies: list[str] = []
        #: the client tool calls assembled, in order (each with why its input is unusable, if)
        self.tool_calls: list[ToolCallReady] = []

    # --- results -----------------------------------------------------------------------------

    @property
    def content(self) -> list[dict[str, Any]]:
        """The finished blocks in index order, in their API form."""
        return [self._finished[i] for i in sorted(self._finished)]

    @property
    def usage(self) -> Usage:
        return Usage.from_api(self._usage)

    @property
    def got_content(self) -> bool:
        return bool(self._blocks)

    def partial_text(self) -> str:
        """All text so far, finished or not (kept when a stream breaks)."""
        parts = []
        for i in sorted(self._blocks):
            block = self._blocks[i]
            if block.type == "text":
                parts.append("".join(block.chunks) if not block.done else self._finished[i]["text"])
        return "".join(parts)

    def salvage(self) -> list[dict[str, Any]]:
        """Content worth keeping after a broken stream: finished blocks (except tool calls that
        can no longer be answered) plus the text of an unfinished text block."""
        kept: list[dict[str, Any]] = []
        answered = {
            b.get("tool_use_id")
            for b in self._finished.values()
            if b.get("tool_use_id") is not None
        }
        for i in sorted(self._blocks):
            block = self._blocks[i]
            if block.done:
                final = self._finished[i]
                if final["type"] == "tool_use":
                    continue
                if final["type"] == "server_tool_use" and final.get("id") not in answered:
                    continue
                kept.append(final)
            elif block.type == "text" and any(block.chunks):  # the API rejects empty text
                kept.append({"type": "text", "text": "".join(block.chunks)})
        return kept

    # --- input -------------------------------------------------------------------------------

    def feed(self, event: dict[str, Any]) -> list[Event]:
        if not isinstance(event, dict):
            self.anomalies.append(f"event that is not an object: {type(event).__name__}")
            return []
        kind = event.get("type")
        handler = _HANDLERS.get(kind) if isinstance(kind, str) else None
        if handler is None:
            return []  # ping and event types this version does not know
        return handler(self, event)

    def _message_start(self, event: dict[str, Any]) -> list[Event]:
        message = _obj(event.get("message"))
        self.started = True
        self.message_id = str(message.get("id", ""))
        self.model = str(message.get("model", ""))
        self._usage.update(_obj(message.get("usage")))
        return [MessageStarted(self.message_id, self.model)]

    def _block_start(self, event: dict[str, Any]) -> list[Event]:
        index = event.get("index")
        start = event.get("content_block")
        if not isinstance(index, int) or not isinstance(start, dict):
            self.anomalies.append("content_block_start without index or block")
            return []
        if not isinstance(start.get("type"), str):
            self.anomalies.append(f"block {index} has no type")
            return []
        if start["type"] in TOOL_BLOCKS and not (
            isinstance(start.get("id"), str) and start["id"] and isinstance(start.get("name"), str)
        ):
            # a tool call with no id can never be answered: keeping it would break the conversation
            self.anomalies.append(f"tool block {index} without an id or name")
            return []
        if index in self._blocks:
            self.anomalies.append(f"block {index} started twice")
            return []
        block = _Block(start=dict(start))
        self._blocks[index] = block
        events: list[Event] = []
        btype = block.type
        if btype in TOOL_BLOCKS:
            server = btype == "server_tool_use"
            block_id, name = str(start.get("id", "")), str(start.get("name", ""))
            if server and name == "web_search":
                block.query = PartialStringField("query")
            events.append(ToolCallStarted(index, block_id, name, server))
        elif btype == "text" and start.get("text") and isinstance(start["text"], str):
            block.chunks.append(start["text"])
            events.append(TextDelta(index, start["text"]))
        # A web_search_tool_result arrives whole in its start event and is reported at its stop.
        return events

    def _block_delta(self, event: dict[str, Any]) -> list[Event]:
        index = event.get("index")
        block = self._blocks.get(index) if isinstance(index, int) else None
        delta = event.get("delta")
        if block is None or block.done or not isinstance(index, int):
            self.anomalies.append(f"delta for block {index} that is not open")
            return []
        if not isinstance(delta, dict):
            self.anomalies.append(f"delta for block {index} is not an object")
            return []
        dtype = delta.get("type")
        if dtype == "text_delta":
            text = _text(self, delta, "text", index)
            block.chunks.append(text)
            return [TextDelta(index, text)] if text else []
        if dtype == "input_json_delta":
            partial = _text(self, delta, "partial_json", index)
            if not partial:
                return []
            block.chunks.append(partial)
            events: list[Event] = [ToolInputDelta(index, str(block.start.get("id", "")), partial)]
            if block.query is not None and block.query.feed(partial):
                events.append(
                    SearchQueryUpdate(str(block.start.get("id", "")), block.query.value or "")
                )
            return events
        if dtype == "thinking_delta":
            text = _text(self, delta, "thinking", index)
            block.chunks.append(text)
            return [ThinkingDelta(index, text)] if text else []
        if dtype == "compaction_delta":
            # the summary (and its opaque metadata) of a server-side compaction, kept verbatim
            if delta.get("content") is not None:
                block.chunks.append(_text(self, delta, "content", index))
            if delta.get("encrypted_content") is not None:
                block.signature.append(_text(self, delta, "encrypted_content", index))
            return []
        if dtype == "signature_delta":
            block.signature.append(_text(self, delta, "signature", index))
        elif dtype == "citations_delta":
            citation = delta.get("citation")
            if isinstance(citation, dict):
                block.citations.append(citation)
        return []

    def _block_stop(self, event: dict[str, Any]) -> list[Event]:
        index = event.get("index")
        if not isinstance(index, int) or index not in self._blocks:
            self.anomalies.append(f"stop for block {index} that never started")
            return []
        if self._blocks[index].done:
            self.anomalies.append(f"block {index} stopped twice")
            return []
        return self._stop_block(index)

    def _stop_block(self, index: int) -> list[Event]:
        block = self._blocks[index]
        block.done = True
        final = dict(block.start)
        btype = block.type
        events: list[Event] = []
        if btype == "text":
            final["text"] = "".join(block.chunks)
            if block.citations:
                final["citations"] = list(block.start.get("citations") or []) + block.citations
        elif btype == "thinking":
            if block.chunks or "thinking" not in final:
                final["thinking"] = "".join(block.chunks)
            if block.signature:
                final["signature"] = "".join(block.signature)
        elif btype == "compaction":
            if block.chunks:
                final["content"] = "".join(block.chunks)
            if block.signature:
                final["encrypted_content"] = "".join(block.signature)
        elif btype in TOOL_BLOCKS:
            events.append(self._tool_call(index, block, final))
        elif btype == "web_search_tool_result":
            events.append(self._search_result(final))
        self._finished[index] = final
        events.append(BlockFinished(index, final))
        return events

    def _tool_call(self, index: int, block: _Block, final: dict[str, Any]) -> ToolCallReady:
        """A tool call's input parsed (why it can't be, when it can't) into its final block."""
        raw = "".join(block.chunks)
        block_id, name = str(final.get("id", "")), str(final.get("name", ""))
        error: str | None = None
        if raw.strip():
            try:
                parsed = json.loads(raw)
            except ValueError as exc:
                parsed, error = {}, f"tool input is not valid JSON ({exc})"
            if not isinstance(parsed, dict) and error is None:
                parsed, error = {}, "tool input is not a JSON object"
        else:
            parsed = final.get("input") if isinstance(final.get("input"), dict) else {}
        final["input"] = parsed
        server = block.type == "server_tool_use"
        if server and isinstance(parsed.get("query"), str):
            self._queries[block_id] = parsed["query"]
        ready = ToolCallReady(index, block_id, name, parsed, server, error)
        if not server:
            self.tool_calls.append(ready)
        return ready

    def _search_result(self, block: dict[str, Any]) -> SearchResultsReceived:
        tool_use_id = str(block.get("tool_use_id", ""))
        query = self._queries.get(tool_use_id, "")
        content = block.get("content")
        if isinstance(content, list):
            results = [
                {"title": str(r.get("title", "")), "url": str(r.get("url", ""))}
                for r in content
                if isinstance(r, dict)
            ]
            return SearchResultsReceived(tool_use_id, query, len(results), results)
        code = content.get("error_code", "unknown") if isinstance(content, dict) else "unknown"
        return SearchResultsReceived(tool_use_id, query, 0, [], str(code))

    def _message_delta(self, event: dict[str, Any]) -> list[Event]:
        delta = _obj(event.get("delta"))
        if "stop_reason" in delta:
            reason, sequence = delta.get("stop_reason"), delta.get("stop_sequence")
            self.stop_reason = reason if isinstance(reason, str) else None
            self.stop_sequence = sequence if isinstance(sequence, str) else None
        # message_delta usage is cumulative: later values replace earlier ones field by field.
        usage = _obj(event.get("usage"))
        self._usage.update({k: v for k, v in usage.items() if v is not None})
        return []

    def _message_stop(self, event: dict[str, Any]) -> list[Event]:
        if self.stopped:
            self.anomalies.append("message stopped twice")
            return []
        self.stopped = True
        return [MessageFinished(self.stop_reason, self.usage, self.content)]

    def _error(self, event: dict[str, Any]) -> list[Event]:
        error = event.get("error")
        if not isinstance(error, dict):
            error = {"message": str(error or "the stream reported an error")}
        raise StreamError(str(error.get("message") or error), str(error.get("type", "api_error")))


def _obj(value: Any) -> dict[str, Any]:
    """An object field of an event; anything else (null, a list, a string) counts as empty."""
    return value if isinstance(value, dict) else {}


def _text(assembler: StreamAssembler, delta: dict[str, Any], key: str, index: int) -> str:
    """A string field of a delta; a value of another type is dropped and recorded."""
    value = delta.get(key, "")
    if isinstance(value, str):
        return value
    assembler.anomalies.append(f"{key} of a delta for block {index} is not a string")
    return ""


_HANDLERS = {
    "message_start": StreamAssembler._message_start,
    "content_block_start": StreamAssembler._block_start,
    "content_block_delta": StreamAssembler._block_delta,
    "content_block_stop": StreamAssembler._block_stop,
    "message_delta": StreamAssembler._message_delta,
    "message_stop": StreamAssembler._message_stop,
    "error": StreamAssembler._error,
}
