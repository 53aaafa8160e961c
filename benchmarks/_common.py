"""Shared pieces of the UI benchmarks: synthetic markdown answers, a scripted offline model that
says them, and monitors for event-loop gaps and painted frames.

Everything here drives the real pipeline (offline provider → assembler → agent loop → AgentApp);
the only substitution is the offline model's *script*, so the provider streams a chosen answer.
"""

from __future__ import annotations

import asyncio
import os
import platform
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

CHARS_PER_TOKEN = 4  # the usual rule of thumb for English text and code

_TEXT = (
    "the agent streams markdown into the chat pane while tools run and every step stays visible "
    "so a person can follow what happens and stop it at any time with a single key press"
)
_WORDS = _TEXT.split()


def _sentence(rng: random.Random) -> str:
    words = rng.choices(_WORDS, k=rng.randint(8, 18))
    words[0] = words[0].capitalize()
    if rng.random() < 0.3:
        i = rng.randrange(len(words))
        words[i] = rng.choice([f"`{words[i]}`", f"**{words[i]}**", f"_{words[i]}_"])
    return " ".join(words) + "."


def _section(rng: random.Random, n: int) -> str:
    parts = [f"## Part {n}: {rng.choice(_WORDS)} {rng.choice(_WORDS)}\n"]
    parts.append(" ".join(_sentence(rng) for _ in range(rng.randint(3, 6))) + "\n")
    parts.append(
        "```python\n"
        + "".join(
            f"def step_{n}_{i}(value: int) -> int:\n"
            f"    # {_sentence(rng)}\n"
            "\n"  # blank lines inside a fence must never become a split point
            f"    return value * {i} + {n}\n"
            for i in range(rng.randint(2, 5))
        )
        + "```\n"
    )
    parts.append(" ".join(_sentence(rng) for _ in range(rng.randint(2, 4))) + "\n")
    rows = "".join(
        f"| {rng.choice(_WORDS)} | {rng.randint(1, 999)} | {rng.choice(_WORDS)} |\n"
        for _ in range(rng.randint(3, 8))
    )
    parts.append("| name | size | note |\n|------|-----:|------|\n" + rows)
    parts.append("".join(f"- {_sentence(rng)}\n" for _ in range(rng.randint(2, 5))))
    return "\n".join(parts) + "\n"


def make_answer(size: int, seed: int = 7) -> str:
    """A markdown answer of about `size` characters: headings, prose, code blocks, tables, lists."""
    rng = random.Random(seed)
    parts: list[str] = []
    total, n = 0, 1
    while total < size:
        section = _section(rng, n)
        parts.append(section)
        total += len(section)
        n += 1
    return "".join(parts)


@contextmanager
def offline_answers(answers: dict[str, str]) -> Iterator[None]:
    """Make the offline model answer a prompt containing a key with that key's text.

    Swaps the provider's (cached) script loader for the duration: the provider, its chunking into
    3-word deltas and its wire events stay exactly as in real use.
    """
    from agent_tui.providers import offline

    script = {
        "default": next(iter(answers)),
        "scenarios": [
            {"name": key, "match": [key], "steps": [[{"text": text}]]}
            for key, text in answers.items()
        ],
    }
    original = offline._script
    offline._script = lambda: script  # type: ignore[assignment]
    try:
        yield
    finally:
        offline._script = original  # type: ignore[assignment]


def mean_chunk_chars(text: str) -> float:
    from agent_tui.providers.offline import _chunks

    chunks = _chunks(text)
    return len(text) / max(1, len(chunks))


def pace(app: Any, delay_scale: float) -> None:
    """Set the offline provider's pacing (0: full speed). The agent's provider is the spending
    cap's wrapper (`CappedProvider`): an attribute set on it would not reach the provider."""
    provider = app.agent.provider
    getattr(provider, "inner", provider).delay_scale = delay_scale


@contextmanager
def bench_env() -> Iterator[Path]:
    """A throwaway AGENT_TUI_HOME and no API key, so the app runs on the offline model."""
    saved = dict(os.environ)
    home = Path(tempfile.mkdtemp(prefix="agent-tui-bench-"))
    for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_BASE_URL"):
        os.environ.pop(name, None)
    os.environ["AGENT_TUI_HOME"] = str(home)
    os.environ["AGENT_TUI_OFFLINE_DELAY"] = "0"
    try:
        yield home
    finally:
        os.environ.clear()
        os.environ.update(saved)


class LoopGaps:
    """Measures how long the event loop goes without running a short periodic callback.

    A gap well above `interval` means something held the loop (a frame, a parse, a render) and
    nothing else — keys included — could run meanwhile.
    """

    def __init__(self, interval: float = 0.005) -> None:
        self.interval = interval
        self.gaps: list[float] = []
        self._task: asyncio.Task[None] | None = None
        self.recording = False

    def start(self) -> None:
        self._task = asyncio.create_task(self._run())

    async def _run(self) -> None:
        last = time.perf_counter()
        while True:
            await asyncio.sleep(self.interval)
            now = time.perf_counter()
            if self.recording:
                self.gaps.append(now - last)
            last = now

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with suppress(asyncio.CancelledError):
                await self._task


class Frames:
    """Timestamps of the compositor updates of a screen (headless still composes every frame)."""

    def __init__(self, screen: Any) -> None:
        self.times: list[float] = []
        self.recording = False
        original: Callable[[], None] = screen._compositor_refresh

        def refresh() -> None:
            original()
            if self.recording:
                self.times.append(time.perf_counter())

        screen._compositor_refresh = refresh

    def intervals(self) -> list[float]:
        return [b - a for a, b in zip(self.times, self.times[1:], strict=False)]


def percentile(values: list[float], p: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


def median(values: list[float]) -> float:
    return statistics.median(values) if values else 0.0


def machine() -> str:
    from importlib.metadata import version

    return (
        f"{platform.machine()}, nproc {os.cpu_count()}, python {platform.python_version()}, "
        f"textual {version('textual')}, "
        f"rich {version('rich')}"
    )


async def wait_until(condition: Callable[[], Any], timeout: float = 300.0) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not condition():
        if loop.time() > deadline:
            raise TimeoutError("benchmark condition not reached")
        await asyncio.sleep(0.02)


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.0f} ms"


async def app_ready(app: Any) -> None:
    await wait_until(lambda: app.agent is not None, timeout=60)


async def ask(
    app: Any, pilot: Any, prompt: str, timeout: float = 600.0, *, paint: bool = True
) -> float:
    """Send a prompt as the prompt box would; return the seconds until the answer is finished
    (streamed, collapsed into its final form and, with `paint`, painted by the caller's task:
    without it, the app's own paint timer shows it)."""
    from agent_tui.ui.chat.messages import AssistantMessage
    from agent_tui.ui.widgets.prompt import PromptInput

    # the newest answer before (not how many: the chat prunes old messages as new ones come)
    earlier = app.query(AssistantMessage)
    before = earlier.last() if earlier else None
    started = time.perf_counter()
    app.query_one(PromptInput).post_message(PromptInput.Submitted(prompt))

    def done() -> bool:
        if app.agent.running or app.live_view.streaming:
            return False  # cheap checks first: this polls while the benchmark measures
        messages = app.query(AssistantMessage)
        return (
            bool(messages)
            and messages.last() is not before
            and bool(messages.last().query(".final"))
        )

    await wait_until(done, timeout)
    if paint:
        await pilot.pause()  # the frame that shows the final state
    return time.perf_counter() - started
