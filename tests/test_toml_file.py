"""`toml_file.read_toml`: a settings file that isn't there is None (and the TOML parser is not
even loaded for it), one that is there is its table, and one that can't be read or isn't TOML is
a `TomlFileError` saying why."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from agent_tui.toml_file import TomlFileError, read_toml


def test_a_file_that_isnt_there_is_none(tmp_path: Path) -> None:
    assert read_toml(tmp_path / "settings.toml") is None


def test_a_file_is_its_table(tmp_path: Path) -> None:
    path = tmp_path / "settings.toml"
    path.write_text('[permissions]\nallow = ["Read"]\n', "utf-8")
    assert read_toml(path) == {"permissions": {"allow": ["Read"]}}


@pytest.mark.parametrize(
    "content", [b"[permissions\nallow = 1", b"\xff\xfe not utf-8"], ids=["not-toml", "not-utf-8"]
)
def test_a_file_that_isnt_toml_says_why(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "settings.toml"
    path.write_bytes(content)
    with pytest.raises(TomlFileError) as raised:
        read_toml(path)
    assert str(raised.value)


def test_a_file_that_cant_be_read_says_why(tmp_path: Path) -> None:
    folder = tmp_path / "settings.toml"
    folder.mkdir()  # a folder where the file should be: can't be read, even as root
    with pytest.raises(TomlFileError, match="directory"):
        read_toml(folder)


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads any file")
def test_an_unreadable_file_says_why(tmp_path: Path) -> None:
    path = tmp_path / "settings.toml"
    path.write_text("a = 1\n", "utf-8")
    path.chmod(0)
    with pytest.raises(TomlFileError, match="Permission denied"):
        read_toml(path)


def test_no_file_no_parser(tmp_path: Path) -> None:
    code = (
        "import sys\nfrom pathlib import Path\nfrom agent_tui.toml_file import read_toml\n"
        f"assert read_toml(Path({str(tmp_path / 'none.toml')!r})) is None\n"
        "print('tomllib' in sys.modules)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    assert done.stdout.strip() == "False"
