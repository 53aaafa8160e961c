"""Piped standard input for `-p`: read when something is piped, a warning (not a hang) when a
pipe stays silent, a clear error when it is too large."""

from __future__ import annotations

import io
import os
from pathlib import Path

import pytest

from agent_tui import piped_input
from agent_tui.piped_input import PipedInputError, read_piped, with_piped


def test_the_prompt_comes_first_and_the_input_is_marked() -> None:
    assert with_piped("review", "a\nb\n") == "review\n\n<stdin>\na\nb\n</stdin>"
    assert with_piped("", "a\n") == "a\n"
    assert with_piped("review", None) == "review"


def test_a_pipe_is_read_to_its_end() -> None:
    r, w = os.pipe()
    os.write(w, b"line one\nline two\n")
    os.close(w)
    with os.fdopen(r, "rb") as stream:
        assert read_piped(stream) == "line one\nline two\n"


def test_a_silent_pipe_is_left_with_a_warning(capsys: pytest.CaptureFixture[str]) -> None:
    r, w = os.pipe()  # the writer stays open and writes nothing
    try:
        with os.fdopen(r, "rb") as stream:
            assert read_piped(stream, wait_s=0.05) is None
    finally:
        os.close(w)
    assert "no piped input arrived" in capsys.readouterr().err


def test_dev_null_and_terminals_are_not_read(tmp_path: Path) -> None:
    with open(os.devnull, "rb") as stream:
        assert read_piped(stream) is None
    assert read_piped(io.BytesIO(b"not a file descriptor")) is None  # type: ignore[arg-type]


def test_too_much_input_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(piped_input, "MAX_PIPED_BYTES", 10)
    big = tmp_path / "big"
    big.write_bytes(b"x" * 11)
    with open(big, "rb") as stream, pytest.raises(PipedInputError, match="write it to a file"):
        read_piped(stream)
