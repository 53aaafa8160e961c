"""Correctness of the chat's streaming pieces (their speed is measured in benchmarks/, not here):
an answer cut into segments must look exactly like the whole, and lose or reorder nothing."""

from __future__ import annotations

import io
import itertools
import random
from typing import Any

import pytest
from rich.console import Console
from textual.app import App, ComposeResult

from agent_tui.ui.chat import messages as chat
from agent_tui.ui.chat.markdown_pieces import reference_definitions
from agent_tui.ui.chat.markdown_split import _safe_split, _SplitScanner
from agent_tui.ui.chat.messages import (
    AssistantMessage,
    ChatView,
    MarkdownSegment,
    render_markdown,
)

BLOCKS = [
    "Some text here.",
    "Para\nwith two lines.",
    "# Heading",
    "## Sub heading",
    "Setext heading\n---",
    "```py\nx = 1\n\ny = 2\n```",
    "~~~\n```\nnot a fence end\n\n~~~",
    "| a | b |\n|---|---|\n| 1 | 2 |",
    "- a\n- b",
    "- a\n\n- b",
    "- a\n\n  continued in the item",
    "* star item",
    "1. one\n\n2. two",
    "1) odd",
    "2024 was a year.",
    "> quote",
    "---",
    "***",
    "**Bold** start.",
    "*em* start",
    "_u_ start",
    "    indented code",
    "[link](https://example.com) text",
    "<div>html</div>",
    "---\t",
    "*\t*\t*",
    "<!--\n\nHidden text\n\n-->",
    "<!-- one line -->",
    "<pre>\n\nInside pre\n\n</pre>",
    "<script>\nlet x = 1\n\nStill script\n</script>",
    # fences and HTML blocks in list items, which end with the item
    "- item\n\n  ```\n  code\nEnds the item.",
    "1. Install:\n\n   ```bash\n   npm i\n   ```",
    "- a\n  ```\n  x\n```\n\nIn the fence that line opened.\n```",
    "10. ten\n\n    ```\n    code\n\n    more\n    ```",
    "- outer\n  - inner\n\n    ```\n    deep\n\n    deeper\n    ```",
    "- lazy item\ncontinued lazily",
    "- <pre>\n\n  kept\n  </pre>",
    "   ```\ntop fence, less indented\n\n   ```",
    "- ```\n  in item\n\n  more",
    "1. one\n2. two\n\n   ```\n   x\n   ```",
    "- x\n\n\t```\n\tcode\n\n\tcode\n\t```",
    "- para\n---",
    "- para\n<div>\n  ```",
    "<section>\n```\nnot a fence: HTML up to the blank line",
    "- para\n<span>x</span> more\n  ```\n  code\n  ```",
]


def lines(markdown: str, width: int = 60) -> list[str]:
    console = Console(file=io.StringIO(), width=width, color_system=None)
    rendered = console.render_lines(render_markdown(markdown), pad=False)
    return ["".join(segment.text for segment in line).rstrip() for line in rendered]


def painted(segments: Any, width: int) -> list[str]:
    """The lines `segments` paint at `width`, one after the other (to compare with `lines`)."""
    return [line.text.rstrip() for s in segments for line in s._render_at(width)]


def split_points(text: str) -> list[int]:
    scanner = _SplitScanner()
    scanner.feed(text)
    return scanner.points


@pytest.mark.parametrize("seed", range(4))
def test_pieces_render_exactly_like_the_whole(seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(150):
        text = "\n\n".join(rng.choice(BLOCKS) for _ in range(6)) + "\n"
        points = [0, *split_points(text), len(text)]
        joined: list[str] = []
        for i, (start, end) in enumerate(itertools.pairwise(points)):
            if i:
                joined.append("")  # MarkdownSegment(gap=True)
            joined += lines(text[start:end])
        assert joined == lines(text), text


@pytest.mark.parametrize("seed", range(2))
def test_pieces_of_a_crlf_text_render_exactly_like_the_whole(seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(100):
        text = "\r\n\r\n".join(rng.choice(BLOCKS).replace("\n", "\r\n") for _ in range(6))
        text += "\r\n"
        points = [0, *split_points(text), len(text)]
        joined: list[str] = []
        for i, (start, end) in enumerate(itertools.pairwise(points)):
            if i:
                joined.append("")
            joined += lines(text[start:end])
        assert joined == lines(text), text


def test_never_splits_inside_a_fence_table_or_list() -> None:
    text = "Intro.\n\n```py\na = 1\n\nb = 2\n```\n\n| x |\n|---|\n| 1 |\n\n- a\n\n- b\n\nEnd.\n"
    cuts = {text[p:].split("\n", 1)[0] for p in split_points(text)}
    assert cuts == {"End."}  # not "b = 2", not "- b"
    html = "Intro.\n\n<!--\n\nHidden.\n\n-->\n\n<pre>\n\nKept.\n</pre>\n\nEnd.\n"
    assert {html[p:].split("\n", 1)[0] for p in split_points(html)} == {"End."}
    rules = "Intro.\n\n---\t\n\nAfter a rule.\r\n\r\n***\r\n\r\nAfter another.\n"
    assert split_points(rules) == []  # Rich puts no blank line after a thematic break


def test_a_fence_in_a_list_item_ends_with_the_item() -> None:
    """The line that ends a list item ends a fence opened in it; a fence line after that opens
    a fence of its own (found by a review: the scanner paired the two and split in the second)."""
    text = "- item\n\n  ```\n  code\nEnds the item.\n  ```\n\nInside the second fence.\n  ```\n"
    assert split_points(text) == []
    after = "   ```\ncode, less indented\n\nStill code.\n   ```\n\nAfter it.\n"
    assert [after[p:].split("\n", 1)[0] for p in split_points(after)] == ["After it."]
    html = "<div>\n  ```\n\nNot code: the HTML ended at the blank line.\n"
    assert [html[p:].split("\n", 1)[0] for p in split_points(html)] == [
        "Not code: the HTML ended at the blank line."
    ]
    steps = "1. Install:\n\n   ```bash\n   npm i\n\n   ```\n\n2. Run it.\n\nDone.\n"
    assert [steps[p:].split("\n", 1)[0] for p in split_points(steps)] == ["Done."]


def test_scanning_in_pieces_finds_the_same_points() -> None:
    rng = random.Random(9)  # (one for all sixty: a new one each time chose one block sixty times)
    text = "\n\n".join(rng.choice(BLOCKS) for _ in range(60)) + "\n"
    scanner = _SplitScanner()
    for end in range(0, len(text), 7):  # deltas cut lines anywhere
        scanner.feed(text[:end])
    scanner.feed(text)
    assert scanner.points == split_points(text)
    assert _safe_split(text) == split_points(text)[-1]


def test_cut_keeps_offsets_relative_to_what_remains() -> None:
    text = "One.\n\nTwo.\n\nThree.\n\nFour.\n"
    scanner = _SplitScanner()
    scanner.feed(text)
    cut = scanner.cut(limit=12)
    assert text[:cut] == "One.\n\nTwo.\n\n"
    rest = text[cut:]
    assert [rest[p:].split("\n")[0] for p in scanner.points] == ["Four."]
    scanner.feed(rest + "\nFive.\n")
    assert [(rest + "\nFive.\n")[p:].split("\n")[0] for p in scanner.points] == ["Four.", "Five."]


def written(segment: MarkdownSegment) -> str:
    """What of the answer `segment` shows: without the fence lines of ours around a long code
    block cut in two (`AssistantMessage._split_fence`), which trims their padding."""
    text = segment.markdown
    first, last = segment._trim
    if first:  # it goes on from a fence line of ours
        text = text.split("\n", 1)[1]
    if last:  # closed by a fence line of ours
        text = text[: text.rstrip("\n").rfind("\n") + 1]
    return text


def ends_outside_fences(markdown: str) -> bool:
    scanner = _SplitScanner()
    scanner.feed(markdown + "\n")
    return scanner.open_fence is None


class ChatApp(App[None]):
    def compose(self) -> ComposeResult:
        yield ChatView()


async def stream_answer(
    app: App[None],
    pilot: Any,
    answer: str,
    *,
    step: int,
    pause_every: int,
    finish: bool = True,
    incomplete: bool = False,
) -> tuple[AssistantMessage, list[MarkdownSegment]]:
    """Write `answer` into a new message `step` characters at a time, letting the app run
    after every `pause_every` writes; finish it (unless not `finish`: until all is drawn) and
    return it with its segments (while it streams: the frozen ones, the settled and live views)."""
    message = AssistantMessage()
    await app.query_one(ChatView).add(message)
    for n, i in enumerate(range(0, len(answer), step)):
        message.write(answer[i : i + step])
        if n % pause_every == 0:
            await pilot.pause()
    if finish:
        await message.finish(incomplete)
    else:
        while message._pending:
            await pilot.pause()
        await pilot.pause(0.2)  # the live view's next update (`LIVE_INTERVAL`), and its paint
    await pilot.pause()
    return message, list(message.query(MarkdownSegment))


async def test_a_long_streamed_answer_is_kept_whole_in_order(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(chat, "SEGMENT_CHARS", 300)
    rng = random.Random(3)
    answer = "\n\n".join(rng.choice(BLOCKS) for _ in range(120)) + "\n"
    app = ChatApp()
    async with app.run_test(size=(80, 30)) as pilot:
        message, segments = await stream_answer(app, pilot, answer, step=11, pause_every=7)
        assert message.text == answer
        assert "".join(written(s) for s in segments) == answer
        assert len(segments) > 3  # it was frozen in pieces
        # frozen where no fence is open (the last ends in one if the answer does)
        assert all(ends_outside_fences(s.markdown) for s in segments[:-1])
        assert ends_outside_fences(segments[-1].markdown) == ends_outside_fences(answer)
        assert segments[-1].has_class("final")
        # Rendered apart, the pieces paint what the whole would (one blank line between them).
        width = segments[0].size.width
        assert painted(segments, width) == lines(answer, width)


async def test_a_link_to_a_reference_defined_in_a_later_segment_resolves(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`[the docs][docs]` frozen while it streamed, `[docs]: …` defined pieces later: once the
    answer is finished it paints as the whole does (the link and its URL), and the segment of the
    definition alone draws nothing, not even its blank line above."""
    monkeypatch.setattr(chat, "SEGMENT_CHARS", 300)
    paragraphs = "\n\n".join(f"Paragraph {n} " + "words " * 20 for n in range(12))
    answer = f"See [the docs][docs] first.\n\n{paragraphs}\n\n[docs]: https://example.com/docs\n"
    app = ChatApp()
    async with app.run_test(size=(80, 30)) as pilot:
        _, segments = await stream_answer(app, pilot, answer, step=11, pause_every=7)
        assert len(segments) > 3  # frozen in pieces
        width = segments[0].size.width
        shown = painted(segments, width)
        assert shown[0] == "See the docs (https://example.com/docs) first."
        assert shown == lines(answer, width)


async def test_links_resolve_while_the_answer_streams(monkeypatch: pytest.MonkeyPatch) -> None:
    """Once the segment with `[docs]: …` is frozen, a link to it in a segment frozen before, and
    one written after (in the part still streaming), paint resolved before the answer ends."""
    monkeypatch.setattr(chat, "SEGMENT_CHARS", 300)
    paragraphs = "\n\n".join(f"Paragraph {n} " + "words " * 20 for n in range(6))
    answer = (
        f"See [the docs][docs] first.\n\n{paragraphs}\n\n[docs]: https://example.com/docs\n\n"
        f"{paragraphs}\n\nAgain [the docs][docs].\n\n"
    )
    app = ChatApp()
    async with app.run_test(size=(80, 30)) as pilot:
        message, segments = await stream_answer(
            app, pilot, answer, step=11, pause_every=7, finish=False
        )
        assert not message.finished and len(segments) > 3
        shown = painted(segments, segments[0].size.width)
        assert shown[0] == "See the docs (https://example.com/docs) first."
        assert "Again the docs (https://example.com/docs)." in shown
        assert not any("[docs]" in line.lower() for line in shown)


async def test_definitions_made_elsewhere_never_draw_in_a_block_left_open(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """An answer cut off in a code block: the definitions other segments make are not written
    after its last segment's text, where they would be lines of its code."""
    monkeypatch.setattr(chat, "SEGMENT_CHARS", 300)
    paragraphs = "\n\n".join(f"Paragraph {n} " + "words " * 20 for n in range(6))
    answer = f"See [the docs][docs].\n\n[docs]: https://example.com/docs\n\n{paragraphs}\n\n"
    answer += "```py\nx = 1\n"
    app = ChatApp()
    async with app.run_test(size=(80, 30)) as pilot:
        _, segments = await stream_answer(
            app, pilot, answer, step=11, pause_every=7, incomplete=True
        )
        shown = painted(segments, segments[0].size.width)
        assert shown[0] == "See the docs (https://example.com/docs)."
        assert any("x = 1" in line for line in shown)
        assert not any("docs]" in line.lower() for line in shown)  # (markdown-it: `[DOCS]`)


def test_reference_definitions_are_written_again_as_markdown_defines_them() -> None:
    text = (
        'See [x][Docs], [y] and [a\\]b].\n\n[docs]: https://example.com/a "The \\"title\\""\n'
        "[y]: <http://e.com/x y>\n[a\\]b]: /p?q=<1>\n\n```\n[z]: http://in.a.fence\n```\n"
    )
    definitions = reference_definitions(text)
    assert "in.a.fence" not in definitions  # a fence's text defines nothing
    assert lines(definitions) == []  # they draw nothing
    uses = "See [x][Docs], [y] and [a\\]b]."
    resolved = lines(f"{uses}\n\n{definitions}")  # as the whole text draws its first lines
    assert resolved == lines(text)[: len(resolved)]
    assert resolved[0].startswith("See x (https://example.com/a), y (http://e.com/x%20y)")
    assert reference_definitions("No [links][here].\n") == ""
    assert reference_definitions("```\n[z]: http://in.a.fence\n```\n") == ""


async def test_incomplete_answer_is_marked_and_empty_answer_hidden() -> None:
    app = ChatApp()
    async with app.run_test(size=(80, 20)) as pilot:
        view = app.query_one(ChatView)
        cut_off, empty = AssistantMessage(), AssistantMessage()
        await view.add(cut_off)
        await view.add(empty)
        cut_off.write("Half an ans")
        await cut_off.finish(incomplete=True)
        await empty.finish()
        await pilot.pause()
        final = cut_off.query_one(".final", MarkdownSegment)
        painted = "\n".join(line.text for line in final._render_at(final.size.width))
        assert "Half an ans" in painted and "incomplete" in painted
        assert cut_off.incomplete
        assert not empty.display


async def test_a_finished_answer_holds_only_views_on_screen() -> None:
    """The streaming views an answer removes when it finishes are not kept by it: a removed
    view keeps what it painted, and the message lives as long as it is on screen."""
    app = ChatApp()
    async with app.run_test(size=(80, 20)) as pilot:
        view = app.query_one(ChatView)
        short, long_ = AssistantMessage(), AssistantMessage()
        await view.add(short)
        await view.add(long_)
        short.write("A short answer.")
        long_.write("A paragraph that will be frozen.\n\n" * 200)
        await pilot.pause()
        await short.finish()
        long_._pending.clear()  # ends right after a frozen segment: the live view goes too
        long_._open = ""
        await long_.finish()
        await pilot.pause()
        for message in (short, long_):
            held = (message._settled_view, message._live_view)
            assert all(message in segment.ancestors for segment in held)  # mounted in it
            assert held[0].has_class("final")


async def test_pruned_messages_let_go_of_what_they_rendered() -> None:
    """Textual's `lru_cache` on `StylesCache.get_inner_outer` keeps the styles cache (and with
    it every rendered line) of up to 1,024 widgets alive; pruning must free them anyway."""
    import gc
    import weakref

    from textual._styles_cache import StylesCache

    app = ChatApp()
    async with app.run_test(size=(80, 20)) as pilot:
        view = app.query_one(ChatView)
        view.max_messages = 4
        first = MarkdownSegment("# Title\n\n" + "A line of an early answer.\n\n" * 30)
        await view.add(first)
        await pilot.pause()
        caches = weakref.ref(first._styles_cache)
        assert first._renders and first._styles_cache._cache  # it painted its lines
        for n in range(8):
            await view.add(MarkdownSegment(f"answer {n}\n\n" * 10))
            await pilot.pause()
        assert first not in view.children
        assert not first._renders and not first._styles_cache._cache
        assert StylesCache.get_inner_outer.cache_info().currsize < 4 * 8
        del first
        gc.collect()
        assert caches() is None  # nothing holds the pruned widget's styles cache any more


async def answers_scrolled_past(
    app: App[None], pilot: Any, body: str
) -> tuple[ChatView, list[MarkdownSegment]]:
    """Twelve answers in the chat, scrolled to the newest."""
    view = app.query_one(ChatView)
    answers = [MarkdownSegment(f"# Answer {n}\n\n" + body) for n in range(12)]
    for answer in answers:
        await view.add(answer)
    await pilot.pause()
    view.scroll_end(animate=False)
    await pilot.pause()
    return view, answers


async def test_messages_far_above_the_view_drop_their_lines_and_paint_again() -> None:
    """What a full collection walks stays near the view: lines of messages more than a screen
    above it are dropped (their heights kept, so a layout renders nothing), and painted again,
    the same, when scrolled to."""
    app = ChatApp()
    async with app.run_test(size=(80, 20)) as pilot:
        view, answers = await answers_scrolled_past(app, pilot, "Some words here.\n\n" * 8)
        width = answers[0].size.width
        before = [line.text for line in answers[0]._render_at(width)]
        assert view.trim_offscreen() >= 8
        assert not answers[0]._renders and not answers[0]._styles_cache._cache
        assert answers[-1]._renders  # on screen: kept
        heights = [a.size.height for a in answers]
        view.refresh(layout=True)
        await pilot.pause()
        assert not answers[0]._renders  # a layout measured it without painting it
        assert [a.size.height for a in answers] == heights
        view.scroll_home(animate=False)
        await pilot.pause()
        assert [line.text for line in answers[0]._render_at(width)] == before


@pytest.mark.parametrize("blank_every", [0, 3])
async def test_a_long_code_block_streams_in_pieces_that_paint_as_one(
    monkeypatch: pytest.MonkeyPatch, blank_every: int
) -> None:
    """A file shown whole in one fence is cut while it streams (each update renders its last
    lines, not all of it), and the pieces paint exactly the lines the whole block would — blank
    lines of code too (a piece that ended with one lost it: Rich leaves them out at the end)."""
    monkeypatch.setattr(chat, "SEGMENT_CHARS", 300)
    code = "".join(
        "\n" if blank_every and n % blank_every == 0 else f"value_{n} = compute({n})  # step {n}\n"
        for n in range(120)
    )
    answer = f"Here is the file:\n\n```python\n{code}```\n\nThat is all.\n"
    app = ChatApp()
    async with app.run_test(size=(80, 30)) as pilot:
        message, segments = await stream_answer(app, pilot, answer, step=17, pause_every=5)
        assert len(segments) > 5  # cut while it streamed
        assert message.text == answer
        width = segments[0].size.width
        assert painted(segments, width) == lines(answer, width)


async def test_after_a_resize_far_messages_are_measured_without_painting() -> None:
    """A resize doesn't render every old answer at the new width: far-off ones get a scaled
    height, and are painted (and laid out again) when scrolled to."""
    app = ChatApp()
    async with app.run_test(size=(80, 20)) as pilot:
        view, answers = await answers_scrolled_past(app, pilot, "Some words here. " * 30)
        view.trim_offscreen()
        await pilot.resize_terminal(50, 20)
        await pilot.pause()
        assert not answers[0]._renders  # measured, not painted
        assert answers[-1]._renders  # on screen: painted at the new width
        view.scroll_home(animate=False)
        await pilot.pause()
        await pilot.pause()
        width = answers[0].size.width
        exact = len(answers[0]._render_at(width))
        assert answers[0].size.height == exact  # painted when reached, laid out to its height


async def test_after_a_resize_only_what_the_view_showed_is_rendered_for_the_layout() -> None:
    """Answers out of view (even those near it, whose lines are kept) get a scaled height at a
    new width; those in view are rendered for it. Scrolled to, every answer is painted
    correctly wrapped at the new width, and laid out to its real height."""
    app = ChatApp()
    async with app.run_test(size=(80, 20)) as pilot:
        _view, answers = await answers_scrolled_past(app, pilot, "Some words here. " * 30)
        assert answers[0]._renders and not answers[0]._dropped  # lines kept, not trimmed
        await pilot.resize_terminal(50, 20)
        await pilot.pause()
        width = answers[-1].size.width
        rendered = [any(key[0] == width for key in a._renders) for a in answers]
        assert rendered[-1] and not rendered[0]  # in view: rendered; far above: not
        for answer in answers:
            answer.scroll_visible(animate=False)
            await pilot.pause()
            await pilot.pause()
            exact = answer._render_at(width)
            assert answer.size.height == len(exact)
            assert [line.text.rstrip() for line in exact] == lines(answer.markdown, width)
