"""agent-tui: work with a Claude model that can act, watching every step live."""

import logging

__version__ = "0.1.0"

# A library's logger says nothing unless the program configures logging (as `--debug` does):
# without a handler here, Python's last-resort handler would print warnings on stderr, over
# the screen.
logging.getLogger(__name__).addHandler(logging.NullHandler())
