"""A change cut into hunks: applying every hunk gives the new text, none gives the old, and any
subset leaves the other hunks' lines exactly as they were."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agent_tui.diffs import HunksChanged, apply_hunks, hunks, partial_change


def split(text: str) -> list[str]:
    return [line + "\n" for line in text.split("\n")[:-1]] + [text.split("\n")[-1]]


lines = st.lists(st.sampled_from(["a\n", "b\n", "c\r\n", "d", "\n", "x y\n"]), max_size=40)


@given(lines, lines, st.sets(st.integers(0, 20)))
def test_apply_all_none_and_any_subset(
    old_lines: list[str], new_lines: list[str], pick: set[int]
) -> None:
    old, new = "".join(old_lines), "".join(new_lines)
    found = hunks(old, new)
    assert apply_hunks(old, new, set(range(len(found)))) == new
    assert apply_hunks(old, new, set()) == old
    partial = apply_hunks(old, new, pick)
    # every line written is the old file's or the new one's, and the unchosen hunks are absent:
    # choosing them on top of the partial result gives the new text
    assert set(split(partial)) <= set(split(old)) | set(split(new))
    rest = set(range(len(hunks(partial, new))))
    assert apply_hunks(partial, new, rest) == new
    if not pick & set(range(len(found))):
        assert partial == old


def test_partial_change_names_the_left_out_hunks() -> None:
    old = "".join(f"line {n}\n" for n in range(30))
    new = old.replace("line 2\n", "LINE 2\n").replace("line 25\n", "LINE 25\n")
    shown = tuple(h.text for h in hunks(old, new))
    text, note = partial_change(old, new, ((1,), shown))
    assert "LINE 25" in text and "LINE 2\n" not in text
    assert "hunk(s) 2 of 2 were written" in note and "+LINE 2" in note and "LINE 25" not in note
    with pytest.raises(HunksChanged):
        partial_change(old.replace("line 9", "changed"), new, ((1,), shown))
