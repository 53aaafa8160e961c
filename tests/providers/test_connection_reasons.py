"""A connection that broke is said with a reason, never an empty one (issue 31)."""

from __future__ import annotations

from agent_tui.providers.anthropic import _connection_error, _first_reason


class RemoteProtocolError(Exception):
    pass


def test_a_reset_without_words_is_named_by_its_class() -> None:
    try:
        try:
            raise RemoteProtocolError()
        except RemoteProtocolError as inner:
            raise ConnectionError() from inner
    except ConnectionError as exc:
        error = _connection_error(exc, "http://127.0.0.1:9")
    assert ": ." not in error.message
    assert "the connection broke (RemoteProtocolError)" in error.message


def test_the_first_words_in_the_chain_are_the_reason() -> None:
    try:
        try:
            raise OSError("peer closed connection without sending complete message body")
        except OSError as inner:
            raise ConnectionError() from inner
    except ConnectionError as exc:
        assert _first_reason(exc) == "peer closed connection without sending complete message body"
    assert _first_reason(ValueError("plain")) == "plain"
