"""The store's shape (issue 30.2): a database (connection, lock, transactions) with one part per
kind of record, each a plain class holding the database; no mixins, no methods forwarded."""

from __future__ import annotations

import inspect
from pathlib import Path

import agent_tui.sessions as sessions_pkg
from agent_tui.sessions.database import Database
from agent_tui.sessions.store import SessionStore

PARTS = {"sessions", "messages", "events", "runs", "turns", "checkpoints"}


def _public(obj: object) -> set[str]:
    return {n for n in dir(obj) if not n.startswith("_")}


def test_the_store_is_a_database_with_its_parts_as_fields(tmp_path: Path) -> None:
    assert SessionStore.__mro__ == (SessionStore, Database, object)
    with SessionStore(tmp_path / "s.db") as store:
        parts = {n: v for n, v in vars(store).items() if n in PARTS}
        assert set(parts) == PARTS
        own = _public(SessionStore)
        for name, part in parts.items():
            assert type(part).__mro__ == (type(part), object), name  # not a mixin of anything
            assert part._db is store, name  # holds the database (and the store's own `tx`)
            assert not (own & _public(part)), name  # nothing of a part forwarded by the store
        # what the store adds to the database is its parts and how it is opened, nothing else
        assert {n for n in vars(SessionStore) if not n.startswith("_")} == {"open_default"}


def test_no_class_in_sessions_is_assembled_from_mixins() -> None:
    for info in Path(sessions_pkg.__file__).parent.glob("*.py"):
        module = __import__(f"agent_tui.sessions.{info.stem}", fromlist=["x"])
        for _, cls in inspect.getmembers(module, inspect.isclass):
            if cls.__module__ == module.__name__:
                bases = [b for b in cls.__bases__ if b.__module__.startswith("agent_tui.")]
                assert len(bases) <= 1, f"{cls.__qualname__} has several bases {bases}"
