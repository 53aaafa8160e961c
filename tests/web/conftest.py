"""Fixtures for the WebFetch tests; the helpers themselves live in `web_helpers`."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

# Helper modules beside this file are importable whatever the import mode.
_HERE = str(Path(__file__).parent)
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)

from web_helpers import Server  # noqa: E402


@pytest.fixture
async def server() -> AsyncIterator[Server]:
    srv = Server()
    await srv.start()
    yield srv
    await srv.stop()
