"""What every client tool is: a name, a pydantic input model (sent to the API as JSON schema), and
an async `run` that returns a `ToolOutput`. Tools know nothing of Textual; they report live progress
through `ToolContext.progress` and are cancelled by cancelling their asyncio task.
"""

from __future__ import annotations

import threading
from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from agent_tui.tools.subject import declare_subject, tool_subject

if TYPE_CHECKING:
    from pydantic import BaseModel

    from agent_tui.diffs import Hunk
    from agent_tui.providers.base import Provider


@dataclass(slots=True)
class ToolOutput:
    """What a tool's run returns: the result for the model, whether it is an error, and a summary
    for the person."""

    content: str
    is_error: bool = False
    #: one line for the chat and the progress pane, e.g. "exit 0 · 12 lines"
    summary: str = ""
    exit_code: int | None = None
    #: usage of sub-requests the tool made (WebSearch, WebFetch extraction), as `Usage`
    usage: Any = None
    meta: dict[str, Any] = field(default_factory=dict)
    #: content blocks sent after the text (images, documents), e.g. Read on a PNG
    blocks: list[dict[str, Any]] | None = None


@dataclass(slots=True)
class ToolContext:
    """What a tool's run gets besides its input: where it runs, the session's services, and ways to
    report progress and ask."""

    cwd: Path
    #: where a tool may keep files for this session (downloads, saved binaries)
    data_dir: Path
    #: report progress: `progress(status="...", output="...")`
    progress: Callable[..., None] = lambda **_: None
    provider: Provider | None = None
    #: the main model, and the small model used for extraction
    model: str = ""
    small_model: str = ""
    tool_use_id: str = ""
    #: hosts the person explicitly allowed (WebFetch may reach a loopback host only if listed)
    explicit_hosts: frozenset[str] = frozenset()
    clock: Callable[[], float] | None = None
    #: emit a domain event directly (WebSearch re-emits its sub-stream's search events)
    emit: Callable[[Any], None] = lambda _event: None
    #: a deny rule keeps this file from being read (Grep and Glob leave it out of results)
    read_denied: Callable[[Path], bool] = lambda _path: False
    #: a partly approved Write/Edit: (the hunks the person kept, the hunks they were shown)
    hunks: tuple[tuple[int, ...], tuple[str, ...]] | None = None
    #: the session's OS sandbox (`sandbox.runner.Sandbox`), or None
    sandbox: Any = None
    #: ask the person whether this call may reach a host: `await ask_host(host, port)` -> bool
    ask_host: Callable[[str, int], Awaitable[bool]] | None = None
    #: the session's background shells (`tools.shells.ShellRegistry`), or None
    shells: Any = None
    #: ask the person about a change set, file by file: `await review_changes(review)` -> the
    #: indexes to apply (`sandbox.settle.ReviewFn`); None: no one to ask
    review_changes: Callable[[Any], Awaitable[tuple[int, ...] | None]] | None = None
    #: the person asked to review this call's change set before it lands
    review: bool = False
    #: a background shell listens on a port in the sandbox: forward it to the person's
    #: loopback? `await ask_forward(shell_id, port)` -> "once", "always" or "deny"
    ask_forward: Callable[[str, int], Awaitable[str]] | None = None
    #: where undo keeps file contents (`checkpoints.blobs.BlobStore`), or None
    blobs: Any = None
    #: ask the person structured questions (AskUserQuestion): `await ask_user(questions)` ->
    #: {question: answer}, or None when they declined; None: no one to ask (headless)
    ask_user: Callable[[list[dict[str, Any]]], Awaitable[dict[str, str] | None]] | None = None


@dataclass(frozen=True)
class Offer:
    """What a built-in tool may ask of the session it is offered to."""

    provider: Provider
    model: str
    #: one value of the person's own `settings.toml` (`[table] key`), or None
    setting: Callable[[str, str], Any]


class Tool(ABC):
    name: ClassVar[str]
    description: ClassVar[str]
    input_model: ClassVar[type[BaseModel]]
    #: read-only tools are the only ones allowed in plan mode
    read_only: ClassVar[bool] = False
    #: declared deferred, as Claude Code's `shouldDefer`: where the session defers tools
    #: (`tools.deferred`), its full definition reaches the model only once a search finds it
    should_defer: ClassVar[bool] = False
    #: the input fields that name what a call acts on, first present wins (`tool_subject`):
    #: declared here, they are what the approval dialog, the logs and the chat show
    subject_fields: ClassVar[tuple[str, ...]] = ()
    #: where a built-in tool (`tools.builtin`) is offered among the others, lowest first
    order: ClassVar[int] = 1000

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if cls.subject_fields and "name" in cls.__dict__:
            declare_subject(cls.name, cls.subject_fields)

    @classmethod
    def for_session(cls, offer: Offer) -> Tool | None:
        """The built-in tool as this session offers it, or None where it has no use (a provider
        or model without it)."""
        return cls()

    def schema(self) -> dict[str, Any]:
        """The tool definition sent to the API."""
        schema = self.input_model.model_json_schema()
        schema.pop("title", None)
        return {"name": self.name, "description": self.description, "input_schema": schema}

    def validate(self, raw: dict[str, Any]) -> BaseModel:
        """Validate raw input; raises `ToolInputError` with a message the model can act on."""
        from pydantic import ValidationError

        try:
            return self.input_model.model_validate(raw)
        except ValidationError as exc:
            problems = "; ".join(
                f"{'.'.join(str(p) for p in err['loc']) or 'input'}: {err['msg']}"
                for err in exc.errors()
            )
            raise ToolInputError(f"Invalid input for {self.name}: {problems}") from None

    def subject(self, params: Any) -> str:
        """What the person is asked about: the command, the path, the URL (`tool_subject`)."""
        return tool_subject(self.name, params.model_dump(exclude_none=True))

    def changed_path(self, params: Any, cwd: Path) -> Path | None:
        """The one file this call replaces (Write, Edit), for checkpoints; None when the call's
        effects are not known in advance."""
        return None

    def transactional(self, params: Any, ctx: ToolContext) -> bool:
        """The call's writes come back as an exact change set (`ToolOutput.meta["changes"]`):
        its checkpoint needs no snapshot (a sandboxed shell command)."""
        return False

    def hunks(self, params: Any, ctx: ToolContext) -> list[Hunk]:
        """The change cut into hunks the person may keep one by one (Write, Edit)."""
        return []

    def preview(self, params: Any, ctx: ToolContext) -> str | None:
        """Extra text for the approval dialog, e.g. the diff a Write or Edit would make."""
        return None

    @abstractmethod
    async def run(self, params: Any, ctx: ToolContext) -> ToolOutput: ...


class ToolInputError(ValueError):
    pass


class ToolRegistry:
    """The session's tools by name, in the order they are offered. The built-in tools are found
    and made when the registry is first asked for its tools (`add_built_ins`), others may be made
    on first use (`add_lazy`): their modules, and pydantic with them, load after the app is ready
    for a prompt rather than before."""

    def __init__(self, tools: list[Tool] | None = None) -> None:
        self._tools: dict[str, Tool | Callable[[], Tool]] = {}
        self._built_ins: Callable[[], list[Tool]] | None = None
        self._schemas: list[dict[str, Any]] | None = None
        self._version = 0  # bumped by every change, so a stale list of schemas is never kept
        # The boot thread warms the tools up (`runtime.warm_up`) while the UI's loop may start a
        # turn or add an MCP server's tools: one lock for the table, one for making a tool (an
        # import), so adding a tool never waits for an import.
        self._lock = threading.Lock()
        # re-entrant: a tool made under it may ask the registry for another
        self._making = threading.RLock()
        for tool in tools or []:
            self.add(tool)

    def add(self, tool: Tool) -> None:
        self._register(tool.name, tool)

    def add_lazy(self, name: str, make: Callable[[], Tool]) -> None:
        """Register `name`, made by `make()` the first time it is needed."""
        self._register(name, make)

    def add_built_ins(self, load: Callable[[], list[Tool]]) -> None:
        """The built-in tools, `load()`ed when the registry is first asked for a tool, its names
        or its schemas; offered before the others (a tool registered by name meanwhile keeps
        its own)."""
        with self._lock:
            self._built_ins = load
            self._schemas = None
            self._version += 1

    def _load_built_ins(self) -> None:
        if self._built_ins is None:
            return
        with self._making:
            load, self._built_ins = self._built_ins, None
            if load is None:
                return  # loaded while this thread waited (or being loaded by this one)
            try:
                tools = load()
            except BaseException:
                self._built_ins = load  # asked again by the next call, which meets it too
                raise
            with self._lock:
                self._tools = {**{tool.name: tool for tool in tools}, **self._tools}
                self._schemas = None
                self._version += 1

    def _register(self, name: str, tool: Tool | Callable[[], Tool]) -> None:
        with self._lock:
            self._tools[name] = tool
            self._schemas = None
            self._version += 1

    def get(self, name: str) -> Tool | None:
        self._load_built_ins()
        entry = self._tools.get(name)
        if entry is None or isinstance(entry, Tool):
            return entry
        with self._making:
            entry = self._tools.get(name)
            if entry is None or isinstance(entry, Tool):
                return entry  # made (or replaced) while this thread waited
            tool = entry()
            if tool.name != name:
                raise ValueError(f"tool registered as {name!r} is named {tool.name!r}")
            with self._lock:
                if self._tools.get(name) is entry:  # not replaced by `add` meanwhile
                    self._tools[name] = tool
            return tool

    def all(self) -> list[Tool]:
        """Every tool, made if it was not yet."""
        self._load_built_ins()
        return [tool for name in list(self._tools) if (tool := self.get(name)) is not None]

    def names(self) -> list[str]:
        self._load_built_ins()
        return list(self._tools)

    def schemas(self) -> list[dict[str, Any]]:
        """The tool definitions, built once (pydantic's schema generation is not cheap) and the
        same objects on every request, so the cached prompt prefix stays byte-identical."""
        self._load_built_ins()
        with self._lock:
            schemas, version = self._schemas, self._version
        if schemas is None:
            schemas = self._build_schemas()
            with self._lock:
                if self._version == version:  # no tool came or went meanwhile
                    self._schemas = schemas
        return schemas

    def model_changed(self, provider: Any, model: str) -> None:
        """The session switched to `model` (a registry that defers tools chooses its mode anew)."""

    def _build_schemas(self) -> list[dict[str, Any]]:
        return [tool.schema() for tool in self.all()]

    def schemas_changed(self) -> None:
        """A tool's definition depends on what changed (the skills or sub-agent types a trust
        answer brought): build them anew on the next request."""
        self._changed()

    def _changed(self) -> None:
        """Something the schemas are built from changed: build them anew on the next request."""
        with self._lock:
            self._schemas = None
            self._version += 1

    def __contains__(self, name: object) -> bool:
        self._load_built_ins()
        return name in self._tools
