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

`install()` applies them once, guarded as Textual's patches are (`agent_tui.patch_guard`):
written for jusText `PATCH.version` (pinned exactly in pyproject.toml), with a digest of each
function it replaces or relies on; when one has changed it stands down, jusText runs as shipped,
and one log line (logger `agent_tui.web.justext_speedups`) says so. `tests/web/test_big_pages.py`
checks it applies on the installed jusText and gives jusText's own results; CI's informational
step runs those tests against the newest jusText too.

Upstream: in `Paragraph`, keep the normalised text until `append_text` changes it and build
`xpath` on demand; in `normalize_whitespace`, substitute with two patterns, not a callback.
"""

from __future__ import annotations

import logging
import re
from typing import Any

from agent_tui.patch_guard import Patch, fits

log = logging.getLogger(__name__)

PATCH = Patch(
    name="justext_speedups",
    version="3.0.2",
    fixes="jusText's paragraphs re-normalise their text at every read, a web page's slowest part",
    targets={
        # replaced
        "justext.paragraph:Paragraph.__init__": 7926406,
        "justext.paragraph:Paragraph.text": 3380912886,
        "justext.paragraph:Paragraph.append_text": 380307570,
        "justext.utils:normalize_whitespace": 2049636678,
        "justext.utils:_replace_whitespace": 2594973852,
        # relied on: the path's (name, order, children) triples and the XPath made of them, and
        # the paragraph maker finding `Paragraph` in `justext.core` when it starts a paragraph
        "justext.core:PathInfo.xpath": 3207127574,
        "justext.core:PathInfo.append": 1467326263,
        "justext.core:ParagraphMaker._start_new_pragraph": 1565734767,
    },
)

#: the whitespace `normalize_whitespace` reads as a run (a constant: no source to digest)
_JUSTEXTS_RUN = r"\s+"

_SPACES = re.compile(r"[^\S\n\r]+")
_BREAKS = re.compile(r" ?[\n\r]\s*")

_verdicts: dict[str, bool] = {}
_installed = False


def normalize_whitespace(text: str) -> str:
    """jusText's `normalize_whitespace`: each run of whitespace becomes "\\n" if it holds a line
    break ("\\n" or "\\r"), else one space."""
    # After the first pass a run is single spaces between line breaks, so a run with a line break
    # starts with at most one space before it.
    return _BREAKS.sub("\n", _SPACES.sub(" ", text))


def install() -> bool:
    """Put the faster pieces into jusText (idempotent); whether they are in place. Nothing
    changes when jusText is not the release the pieces were written for (one log line)."""
    global _installed
    if _installed:
        return True
    try:
        from justext import core, paragraph, utils
    except ImportError:
        return False
    if not fits(PATCH, "jusText", _verdicts, log):
        return False
    base = paragraph.Paragraph
    run = getattr(getattr(utils, "MULTIPLE_WHITESPACE_PATTERN", None), "pattern", None)
    if (
        core.Paragraph is not base
        or paragraph.normalize_whitespace is not utils.normalize_whitespace
    ):
        return False  # someone else has replaced them: theirs stays
    if run != _JUSTEXTS_RUN:
        log.warning(
            "jusText patch %s stands down: justext.utils:MULTIPLE_WHITESPACE_PATTERN changed "
            "since jusText %s (%s)",
            PATCH.name,
            PATCH.version,
            PATCH.fixes,
        )
        _verdicts[PATCH.name] = False
        return False
    core.Paragraph = _paragraph_class(base)
    paragraph.normalize_whitespace = normalize_whitespace
    _installed = True
    return True


def _paragraph_class(base: Any) -> Any:
    class Paragraph(base):  # type: ignore[misc]  # jusText's class: untyped, found at run time
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
