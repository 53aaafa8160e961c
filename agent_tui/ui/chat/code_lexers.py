"""Syntax lexers loaded off the UI thread: a code block never waits for its lexer in a frame.

Pygments compiles a lexer's regular expressions the first time the process uses it: 18 ms of CPU
for Python, 35 for CSS, 23 for Kotlin, 13 for TypeScript (measured 2026-12-05, BENCHMARKS.md).
Done while painting, that was one long callback the first time an answer streamed a fence in a
new language, and most of a resumed session's first paint of its history.

Now, inside `deferring()` (where the caller can paint again: `MarkdownSegment`), a code block
whose lexer is not loaded yet is painted in the code theme without token colours — the same
lines, so nothing moves — its language is noted, and `LEXERS` loads it in a thread of its own;
the caller is called back (`when_ready`) and paints the block again, coloured. Elsewhere a block
loads its lexer in place, as before.

Every lexer the app uses is loaded through `LEXERS.load` (one lock): Pygments compiles a lexer
class on its first instance, and two threads doing that for one class at once could mix up its
states.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager, suppress
from functools import cache
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from queue import SimpleQueue

    from rich.console import Console, ConsoleOptions, RenderResult
    from rich.markdown import CodeBlock

log = logging.getLogger(__name__)

#: what a block without a language (or still waiting for its own) is painted with: no rules
PLAIN = "text"


class LexerLoader:
    """Loads Pygments lexers by name, now (`load`) or in its thread (`when_ready`)."""

    def __init__(self) -> None:
        #: held while a lexer is compiled (one at a time, in whichever thread)
        self._loading = threading.Lock()
        #: held for the bookkeeping below (never while compiling)
        self._lock = threading.Lock()
        #: names loaded (or found to have no lexer: painted plain, as Rich does, at once)
        self._ready: set[str] = {PLAIN}
        #: callbacks waiting for a name, by name; a name is queued once
        self._waiting: dict[str, list[Callable[[], object]]] = {}
        #: the names for the loader's thread, made with it at the first wait
        self._queue: SimpleQueue[str] | None = None

    def ready(self, name: str) -> bool:
        return name in self._ready

    def load(self, name: str) -> None:
        """Load `name`'s lexer in this thread (waiting, if the loader's thread is loading it)."""
        if name in self._ready:
            return
        from pygments.lexers import get_lexer_by_name
        from pygments.util import ClassNotFound

        with self._loading:
            if name not in self._ready:
                # Its class's rules are compiled on its first instance; no such language: the
                # block is painted plain, as Rich does.
                with suppress(ClassNotFound):
                    get_lexer_by_name(name)
                self._ready.add(name)

    def when_ready(self, names: Iterable[str], callback: Callable[[], object]) -> None:
        """Call `callback` (from the loader's thread) once every one of `names` is loaded."""
        missing = [name for name in set(names) if name not in self._ready]
        if not missing:
            callback()
            return
        left = [len(missing)]

        def one_loaded() -> None:
            with self._lock:
                left[0] -= 1
                done = left[0] == 0
            if done:
                callback()

        with self._lock:
            if self._queue is None:
                from queue import SimpleQueue  # not on the first frame's way: made when needed

                self._queue = SimpleQueue()
                thread = threading.Thread(target=self._run, args=(self._queue,), name="lexers")
                thread.daemon = True
                thread.start()
            for name in missing:
                if name in self._ready:
                    left[0] -= 1
                    continue
                first = name not in self._waiting
                self._waiting.setdefault(name, []).append(one_loaded)
                if first:
                    self._queue.put(name)
            done = left[0] == 0
        if done:
            callback()

    def _run(self, queue: SimpleQueue[str]) -> None:
        while True:
            name = queue.get()
            try:
                self.load(name)
            except Exception:  # a broken lexer: the block stays plain, the rest go on
                log.exception("loading the %r lexer failed", name)
                with self._lock:
                    self._ready.add(name)
            with self._lock:
                callbacks = self._waiting.pop(name, [])
            for callback in callbacks:
                try:
                    callback()
                except Exception:  # the widget went away meanwhile, or the app did
                    log.debug("a lexer's callback failed", exc_info=True)


#: the process's loader (Pygments keeps what it compiled for the process too)
LEXERS = LexerLoader()


def load(name: str) -> None:
    """Load `name`'s lexer now, in this thread (`LexerLoader.load`): before any use of a lexer
    outside markdown (a command's highlighting, a diff)."""
    LEXERS.load(name)


def when_loaded(names: Iterable[str], callback: Callable[[], object]) -> None:
    """`callback` once `names` are loaded, from the loader's thread (`LexerLoader.when_ready`)."""
    LEXERS.when_ready(names, callback)


_deferring = threading.local()


@contextmanager
def deferring() -> Iterator[set[str]]:
    """Code blocks rendered inside don't wait for a lexer not loaded yet: they are painted
    plain, and their languages added to the set given (to each set, when nested): the caller
    paints again once `LEXERS.when_ready(those)` calls back."""
    stack: list[set[str]] = _deferring.__dict__.setdefault("stack", [])
    waiting: set[str] = set()
    stack.append(waiting)
    try:
        yield waiting
    finally:
        stack.pop()


def _lexer_for(name: str) -> str:
    """The lexer a code block in `name` is painted with now (see `deferring`)."""
    if LEXERS.ready(name):
        return name
    stack: list[set[str]] = getattr(_deferring, "stack", [])
    if not stack:
        LEXERS.load(name)
        return name
    for waiting in stack:
        waiting.add(name)
    return PLAIN


@cache
def code_block_class() -> type[CodeBlock]:
    """Rich's markdown code block, with its lexer chosen by `_lexer_for` (rich.markdown 15)."""
    from rich.markdown import CodeBlock
    from rich.syntax import Syntax

    class DeferringCodeBlock(CodeBlock):
        def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
            code = str(self.text).rstrip()
            lexer = _lexer_for(self.lexer_name)
            yield Syntax(code, lexer, theme=self.theme, word_wrap=True, padding=1)

    return DeferringCodeBlock


def markdown_elements(elements: dict[str, Any]) -> dict[str, Any]:
    """Rich's `Markdown.elements` with the code blocks above."""
    block = code_block_class()
    return {**elements, "fence": block, "code_block": block}
