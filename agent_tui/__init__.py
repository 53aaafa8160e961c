"""agent-tui: work with a Claude model that can act, watching every step live."""

__version__ = "0.1.0"
