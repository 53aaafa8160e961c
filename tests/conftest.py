"""Shared test setup. Kept minimal: helpers live in importable modules (`sse_server`)."""

from __future__ import annotations

import sys
from pathlib import Path

# Test modules import helpers such as `sse_server` from this directory whatever the import mode.
_TESTS = str(Path(__file__).parent)
if _TESTS not in sys.path:
    sys.path.insert(0, _TESTS)
