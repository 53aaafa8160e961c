"""What happens between reading a change set and applying it (red-team findings F6, F8, F8b, F9):
a running shell that swaps what was judged, the person saving a file meanwhile, a folder taken
with an edit in it, an apply cut short by a kill. The upper directories here are written by hand
(what an overlay leaves: files, links, whiteouts), so each race is reproduced exactly; the kill
is a real SIGKILL of a real process. Work folders off /tmp."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent_tui.checkpoints.blobs import MemoryBlobs, blob_id
from agent_tui.checkpoints.scratch import Scratch
from agent_tui.sandbox.apply_journal import ApplyJournal
from agent_tui.sandbox.changes import Change, read_changes
from agent_tui.sandbox.commit import _order, apply_changes
from agent_tui.sandbox.snapshot import freeze
from agent_tui.sandbox.transaction import Transaction, held_sets


@pytest.fixture
def places() -> Iterator[tuple[Path, Path, Path]]:
    root = Path(tempfile.mkdtemp(prefix="agent-tui-races-", dir="/var/tmp"))
    project, layers, secret = root / "project", root / "layers", root / "secret"
    for folder in (project, layers, secret):
        folder.mkdir()
    (secret / "id_rsa").write_text("SECRET-SSH-KEY\n")
    try:
        yield project, layers, secret / "id_rsa"
    finally:
        shutil.rmtree(root, ignore_errors=True)


def begin(project: Path, layers: Path) -> Transaction:
    txn = Transaction.begin(layers, project, "cmd")
    time.sleep(0.02)  # past the start's clock tick: the person's writes from here are after it
    return txn


def apply(txn: Transaction, changes: list[Change], blobs: MemoryBlobs | None = None) -> object:
    return apply_changes(
        txn.lower,
        changes,
        blobs=blobs or MemoryBlobs(),
        by="t",
        scratch=Scratch(txn.folder / "scratch"),
        journal=ApplyJournal(txn.folder, txn.upper, txn.lower),
    )


# --- F6: a running shell swaps what was judged ---


def test_a_file_swapped_for_a_link_after_the_read_is_never_copied(
    places: tuple[Path, Path, Path],
) -> None:
    project, layers, secret = places
    txn = begin(project, layers)
    (txn.upper / "f_1").write_text("harmless\n")
    (txn.upper / "d").mkdir()
    (txn.upper / "d" / "x").write_text("harmless\n")
    changes = read_changes(txn.upper, txn.lower, txn.started_ns)
    # the shell, still running, swaps the file for a link and the folder for one
    (txn.upper / "f_1").unlink()
    (txn.upper / "f_1").symlink_to(secret)
    shutil.rmtree(txn.upper / "d")
    (txn.upper / "d").symlink_to(secret.parent)
    (secret.parent / "x").write_text("SECRET-SSH-KEY\n")
    frozen = freeze(changes, txn.upper, txn.lower, txn.folder / "staging")
    assert sorted(frozen.later) == ["d", "d/x", "f_1"]
    assert frozen.changes == []
    applied = apply(txn, frozen.changes)
    assert not list(project.iterdir())
    staged = [p.read_bytes() for p in (txn.folder / "staging").rglob("*") if p.is_file()]
    assert not any(b"SECRET" in data for data in staged), applied


def test_what_is_judged_and_applied_is_the_frozen_copy(places: tuple[Path, Path, Path]) -> None:
    project, layers, _ = places
    (project / "same.txt").write_text("one\n")
    txn = begin(project, layers)
    (txn.upper / "pyvenv.cfg").write_text("home = /usr/bin\n")
    (txn.upper / "same.txt").write_text("one\n")  # copied up, nothing changed
    changes = read_changes(txn.upper, txn.lower, txn.started_ns)
    assert {c.rel: c.same for c in changes}["same.txt"]
    frozen = freeze(changes, txn.upper, txn.lower, txn.folder / "staging")
    # after the freeze the shell rewrites both: neither the gate nor the apply sees it
    (txn.upper / "pyvenv.cfg").write_text("home = /var/tmp/evil\n")
    (txn.upper / "same.txt").write_text("changed after\n")
    by = {c.rel: c for c in frozen.changes}
    assert by["pyvenv.cfg"].upper == txn.folder / "staging" / "pyvenv.cfg"
    assert by["pyvenv.cfg"].upper.read_text() == "home = /usr/bin\n"
    assert by["same.txt"].same
    st = os.lstat(txn.folder / "staging" / "pyvenv.cfg")
    assert frozen.states["pyvenv.cfg"][1] == st.st_size


def test_a_file_rewritten_before_the_freeze_is_frozen_as_it_is_then(
    places: tuple[Path, Path, Path],
) -> None:
    project, layers, _ = places
    (project / "same.txt").write_text("one\n")
    txn = begin(project, layers)
    (txn.upper / "same.txt").write_text("one\n")
    changes = read_changes(txn.upper, txn.lower, txn.started_ns)
    (txn.upper / "same.txt").write_text("two\n")  # not the same any more: it must be applied
    frozen = freeze(changes, txn.upper, txn.lower, txn.folder / "staging")
    (change,) = frozen.changes
    assert not change.same and change.upper is not None and change.upper.read_text() == "two\n"


# --- F8, F8b: the person's save between the read and the apply ---


def test_a_file_the_person_saves_after_the_read_is_not_overwritten(
    places: tuple[Path, Path, Path],
) -> None:
    project, layers, _ = places
    for name in ("zz.txt", "gone.txt", "link"):
        (project / name).write_text("person v1\n")
    txn = begin(project, layers)
    (txn.upper / "zz.txt").write_text("model\n")
    if os.geteuid() == 0:  # a whiteout (only root makes one outside an overlay)
        os.mknod(txn.upper / "gone.txt", 0o600 | 0o020000, 0)
    (txn.upper / "link").symlink_to("zz.txt")
    (txn.upper / "new.txt").write_text("model\n")
    changes = read_changes(txn.upper, txn.lower, txn.started_ns)
    assert not any(c.conflict for c in changes)
    for name in ("zz.txt", "gone.txt", "link"):  # the person saves, after the gate judged
        (project / name).write_text("PERSON EDIT v2\n")
    (project / "new.txt").write_text("the person's own new file\n")
    applied = apply(txn, changes)
    failed = dict(applied.failed)  # type: ignore[attr-defined]
    assert set(failed) == {c.rel for c in changes}
    assert all("theirs is kept" in why for why in failed.values())
    for name in ("zz.txt", "gone.txt", "link"):
        assert (project / name).read_text() == "PERSON EDIT v2\n"
    assert (project / "new.txt").read_text() == "the person's own new file\n"


def test_a_folder_replaced_by_a_file_with_an_edit_inside_is_a_conflict(
    places: tuple[Path, Path, Path],
) -> None:
    project, layers, _ = places
    (project / "docs").mkdir()
    (project / "docs" / "notes.md").write_text("mine\n")
    (project / "old").mkdir()
    (project / "old" / "a.txt").write_text("a\n")
    txn = begin(project, layers)
    (project / "docs" / "notes.md").write_text("mine, and more\n")  # in place: the folder's
    (txn.upper / "docs").write_text("the command's file\n")  # ctime doesn't move
    (txn.upper / "old").symlink_to("docs")
    by = {c.rel: c for c in read_changes(txn.upper, txn.lower, txn.started_ns)}
    assert by["docs"].conflict and by["docs"].removes_folder
    assert not by["old"].conflict
    (project / "old" / "a.txt").write_text("edited after the read\n")
    applied = apply(txn, [by["old"]])
    assert "theirs is kept" in dict(applied.failed)["old"]  # type: ignore[attr-defined]
    assert (project / "old" / "a.txt").read_text() == "edited after the read\n"


# --- F9: the order of a repository's files, and an apply cut short ---


def test_a_repositorys_objects_land_before_what_names_them() -> None:
    def change(rel: str, kind: str = "file") -> Change:
        return Change(rel, kind, "none", None)  # type: ignore[arg-type]

    changes = [
        change(".git/HEAD"),
        change(".git/index"),
        change(".git/ORIG_HEAD"),
        change(".git/objects/12/" + "3" * 38, "delete"),
        change(".git/objects/pack/pack-1.pack"),
        change(".git/objects/ab/" + "c" * 38),
        change(".git/refs/heads/main"),
        change(".git/refs", "dir"),
        change("src/a.py"),
    ]
    order = [c.rel for c in sorted(changes, key=_order)]
    assert order == [
        ".git/objects/ab/" + "c" * 38,
        ".git/objects/pack/pack-1.pack",
        ".git/refs",
        "src/a.py",
        ".git/ORIG_HEAD",
        ".git/refs/heads/main",
        ".git/HEAD",
        ".git/index",
        ".git/objects/12/" + "3" * 38,
    ]


APPLY = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from agent_tui.checkpoints.blobs import MemoryBlobs
    from agent_tui.checkpoints.scratch import Scratch
    from agent_tui.sandbox.apply_journal import ApplyJournal
    from agent_tui.sandbox.commit import apply_changes
    from agent_tui.sandbox.transaction import Transaction

    folder, project = Path(sys.argv[1]), Path(sys.argv[2])
    txn = Transaction(folder, project, "cmd", int(sys.argv[3]))
    apply_changes(
        project, txn.changes(), blobs=MemoryBlobs(), by="t",
        scratch=Scratch(folder / "scratch"),
        journal=ApplyJournal(folder, txn.upper, project),
    )
    """
)


def test_an_apply_killed_half_way_is_finished_later_and_undone_whole(
    places: tuple[Path, Path, Path],
) -> None:
    project, layers, _ = places
    (project / "a").mkdir()
    for n in range(0, 3000, 100):  # some of the person's files the command rewrites
        (project / "a" / f"{n:04}").write_text(f"person {n}\n")
    txn = begin(project, layers)
    (txn.upper / "a").mkdir()
    for n in range(3000):
        (txn.upper / "a" / f"{n:04}").write_text(f"model {n}\n")
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    proc = subprocess.Popen(
        [sys.executable, "-c", APPLY, str(txn.folder), str(project), str(txn.started_ns)], env=env
    )
    try:
        for _ in range(3000):
            if (project / "a" / "0300").read_text() == "model 300\n" or proc.poll() is not None:
                break
            time.sleep(0.002)
        proc.send_signal(signal.SIGKILL)
    finally:
        proc.wait(30)
    if proc.returncode != -signal.SIGKILL:
        pytest.skip("the apply finished before it could be killed (a very fast machine)")
    landed = sum(1 for p in (project / "a").iterdir() if p.read_text().startswith("model"))
    assert 0 < landed < 3000
    manifest = json.loads((txn.folder / "manifest.json").read_text())
    manifest["app_pid"] = proc.pid  # the killed process stands for the killed app
    (txn.folder / "manifest.json").write_text(json.dumps(manifest))
    (held,) = held_sets(layers, project)
    assert "while applying it" in held.reason and "landed" in held.reason
    # the rest is applied: what landed before reads as unchanged, nothing is undone or doubled
    blobs = MemoryBlobs()
    rest = apply(txn, [c for c in txn.changes() if not c.same], blobs)  # as the gate leaves it
    assert not rest.failed  # type: ignore[attr-defined]
    assert all(p.read_text().startswith("model") for p in (project / "a").iterdir())
    entries = rest.entries  # type: ignore[attr-defined]
    assert len({e["path"] for e in entries}) == len(entries) == 3000
    # and the one record takes back the whole command: the person's files are in it
    for n in range(0, 3000, 100):
        (entry,) = [e for e in entries if e["path"] == str(project / "a" / f"{n:04}")]
        assert entry["before"] == blob_id(f"person {n}\n".encode())
        assert blobs.get_blob(entry["before"]) == f"person {n}\n".encode()
    assert not (txn.folder / "applied").exists()  # a finished apply leaves no journal


# --- R2-1's second wall: the upper directory is read without following a link ---


def test_a_folder_swapped_for_a_link_after_the_read_sends_nothing_anywhere(
    places: tuple[Path, Path, Path],
) -> None:
    project, layers, secret = places
    txn = begin(project, layers)
    (txn.upper / "zzz").mkdir()
    (txn.upper / "zzz" / "id_rsa").write_text("decoy\n")
    changes = [c for c in read_changes(txn.upper, txn.lower, txn.started_ns) if c.kind == "file"]
    shutil.rmtree(txn.upper / "zzz")  # as a process holding the overlay could, after the read
    (txn.upper / "zzz").symlink_to(secret.parent)
    applied = apply_changes(
        txn.lower,
        changes,
        blobs=MemoryBlobs(),
        by="t",
        scratch=Scratch(txn.folder / "scratch"),
        source=txn.upper,
    )
    assert [rel for rel, _ in applied.failed] == ["zzz/id_rsa"]
    assert not (project / "zzz" / "id_rsa").exists()
    txn.forget(["zzz/id_rsa", "zzz"])  # nor does taking it out of the change set reach the key
    assert secret.read_text() == "SECRET-SSH-KEY\n"


def test_files_the_command_hard_linked_are_separate_files_in_the_project(
    places: tuple[Path, Path, Path],
) -> None:
    project, layers, _ = places
    txn = begin(project, layers)
    (txn.upper / "notes.txt").write_text("model\n")
    os.link(txn.upper / "notes.txt", txn.upper / "run.sh")
    changes = read_changes(txn.upper, txn.lower, txn.started_ns)
    applied = apply(txn, changes)
    assert sorted(applied.applied) == ["notes.txt", "run.sh"]  # type: ignore[attr-defined]
    a, b = os.stat(project / "notes.txt"), os.stat(project / "run.sh")
    assert a.st_ino != b.st_ino and a.st_nlink == 1 and b.st_nlink == 1
    (project / "run.sh").write_text("the person's edit\n")
    assert (project / "notes.txt").read_text() == "model\n"


def test_a_file_that_landed_is_not_the_one_a_process_still_holds_open(
    places: tuple[Path, Path, Path],
) -> None:
    """R3-3: what lands is a copy, so a process that kept the command's file open (a background
    shell handed its descriptor) writes to the change set's file, never into the project."""
    project, layers, _ = places
    txn = begin(project, layers)
    (txn.upper / "notes.txt").write_text("harmless\n")
    held_open = os.open(txn.upper / "notes.txt", os.O_WRONLY)
    try:
        applied = apply(txn, read_changes(txn.upper, txn.lower, txn.started_ns))
        assert applied.applied == ["notes.txt"]  # type: ignore[attr-defined]
        os.pwrite(held_open, b"EVIL-AFTER-APPLY\n", 0)
    finally:
        os.close(held_open)
    assert (project / "notes.txt").read_text() == "harmless\n"
    assert os.stat(project / "notes.txt").st_ino != os.stat(txn.upper / "notes.txt").st_ino


def test_a_running_shells_sparse_or_huge_file_waits_for_its_end(
    places: tuple[Path, Path, Path],
) -> None:
    from agent_tui.sandbox.filecopy import copy_fd
    from agent_tui.sandbox.snapshot import FREEZE_LIMIT

    project, layers, _ = places
    txn = begin(project, layers)
    with open(txn.upper / "big.bin", "wb") as f:
        f.truncate(FREEZE_LIMIT + 1)  # nothing in it, and more than a sync freezes
    with open(txn.upper / "sparse.bin", "wb") as f:
        f.truncate(32 * 1024 * 1024)
        f.seek(16 * 1024 * 1024)
        f.write(b"data")
    changes = read_changes(txn.upper, txn.lower, txn.started_ns)
    frozen = freeze(changes, txn.upper, txn.lower, txn.folder / "staging")
    assert frozen.later == ["big.bin"]
    copy = txn.folder / "staging" / "sparse.bin"
    assert copy.stat().st_size == 32 * 1024 * 1024 and copy.stat().st_blocks * 512 < 1024 * 1024
    with open(copy, "rb") as f:
        f.seek(16 * 1024 * 1024)
        assert f.read(4) == b"data"
    # the copy keeps holes across file systems too (a plain read and write where needed)
    out = txn.folder / "again.bin"
    with open(copy, "rb") as src, open(out, "wb") as dst:
        copy_fd(src.fileno(), dst.fileno())
    assert out.read_bytes() == copy.read_bytes()


def test_changes_apply_from_the_command_line_is_recorded_for_undo(
    places: tuple[Path, Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    from agent_tui.protocol.events import FilesChanged
    from agent_tui.sandbox.transaction import changes_dir
    from agent_tui.sessions.store import SessionStore

    project, layers, _ = places
    app = layers / "app"
    monkeypatch.setenv("AGENT_TUI_HOME", str(app))
    (project / "mine.txt").write_text("the person's\n")
    with SessionStore.open_default() as store:
        session = store.sessions.create(project, "offline", title="work")
    txn = Transaction.begin(changes_dir(app, project), project, "cmd")
    (txn.upper / "mine.txt").write_text("the command's\n")
    (txn.upper / "new.txt").write_text("new\n")
    txn.hold("the person was away")
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    done = subprocess.run(
        [sys.executable, "-m", "agent_tui", "changes", "apply", txn.id],
        capture_output=True, text=True, env=env, cwd=project,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "recorded as checkpoint 1" in done.stdout, done.stdout
    assert (project / "mine.txt").read_text() == "the command's\n"
    with SessionStore.open_default() as store:
        [event] = store.events.load_kinds(session, ("files_changed",))
        assert isinstance(event, FilesChanged)
        by = {Path(f["path"]).name: f for f in event.files}
        assert set(by) == {"mine.txt", "new.txt"} and by["new.txt"]["before"] is None
        assert store.checkpoints.get_blob(by["mine.txt"]["before"]) == b"the person's\n"
