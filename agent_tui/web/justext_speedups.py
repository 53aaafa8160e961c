"""jusText, which trafilatura runs as its second opinion on every page, made faster, same output.

trafilatura compares its own extraction with readability's and jusText's; on a page built of many
articles jusText's is the one that keeps them all, so it cannot be skipped (trafilatura's `fast`
mode skips it and kept 899 of 150,445 characters of such a page). Profiled, most of jusText's time
goes to three things this module changes without changing a result:

- `normalize_whitespace` calls a Python function for every run of whitespace; two C-level
  substitutions give the same string (a run with a line break becomes one "\\n", any other one
  space).
- `Paragraph.text` joins and normalises the paragraph's text at every read, and the classifier
  reads it up to six times a paragraph; it is kept until the paragraph's text changes.
- `Paragraph.__init__` builds the paragraph's XPath string, which trafilatura never reads; the
  path's parts are kept and the string built when asked for.

`install()` applies them once; if jusText is laid out otherwise, it changes nothing.
"""

from __future__ import annotations

import re
from typing import Any

_SPACES = re.compile(r"[^\S\n\r]+")
_BREAKS = re.compile(r" ?[\n\r]\s*")

_installed = False


def normalize_whitespace(text: str) -> str:
    """jusText's `normalize_whitespace`: each run of whitespace becomes "\\n" if it holds a line
    break ("\\n" or "\\r"), else one space."""
    # After the first pass a run is single spaces between line breaks, so a run with a line break
    # starts with at most one space before it.
    return _BREAKS.sub("\n", _SPACES.sub(" ", text))


def install() -> bool:
    """Put the faster pieces into jusText (idempotent); whether they are in place."""
    global _installed
    if _installed:
        return True
    try:
        from justext import core, paragraph
    except ImportError:
        return False
    base = getattr(paragraph, "Paragraph", None)
    if (
        base is None
        or getattr(core, "Paragraph", None) is not base
        or not callable(getattr(paragraph, "normalize_whitespace", None))
        or not isinstance(getattr(base, "text", None), property)
    ):
        return False
    core.Paragraph = _paragraph_class(base)
    paragraph.normalize_whitespace = normalize_whitespace
    _installed = True
    return True


def _paragraph_class(base: Any) -> Any:
    class Paragraph(base):
        """jusText's paragraph with its text kept between changes and its XPath made on demand."""

        def __init__(self, path: Any) -> None:
            self.dom_path = path.dom
            # The (name, order, children) triples as they are now: the XPath is of this moment.
            self._path_parts = tuple(path._elements)
            self.text_nodes: list[str] = []
            self.chars_count_in_links = 0
            self.tags_count = 0
            self.class_type = ""
            self._text: str | None = None

        @property
        def xpath(self) -> str:
            return "/" + "/".join(f"{name}[{order:d}]" for name, order, _ in self._path_parts)

        @property
        def text(self) -> str:
            if self._text is None:
                self._text = normalize_whitespace("".join(self.text_nodes).strip())
            return self._text

        def append_text(self, text: str) -> str:
            self._text = None
            text = normalize_whitespace(text)
            self.text_nodes.append(text)
            return text

    Paragraph.__qualname__ = Paragraph.__name__ = "Paragraph"
    return Paragraph
