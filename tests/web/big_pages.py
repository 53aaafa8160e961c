"""The two kinds of 1 MB page that WebFetch's conversion is measured and tested on.

- `many_articles_page`: the twelve saved real pages (tests/fixtures/html), each page's body as one
  `<article>` of a digest page: many distinct articles, ~1 MB. Pages like it (front pages,
  digests, archives) lost all but one article when big pages were converted in trafilatura's
  fast mode.
- `repeated_article_page`: the Wikipedia page's body ten times over, ~1 MB.

`full_extraction` is trafilatura's own extraction of the raw page with our options and nothing
skipped: what "kept" is measured against. The benchmark (benchmarks/bench_convert.py) imports
this module too.
"""

from __future__ import annotations

import re
from pathlib import Path

FIXTURES = Path(__file__).parent.parent / "fixtures" / "html"


def _decoded(path: Path) -> str:
    from agent_tui.web.convert import decode_body

    text, _ = decode_body(path.read_bytes(), None, html=True)
    return text


def _body(html: str) -> str:
    start = re.search(r"<body[^>]*>", html, re.I)
    end = html.lower().rindex("</body>")
    return html[start.end() if start else 0 : end]


def many_articles_page() -> str:
    articles = "".join(
        f"<article>{_body(_decoded(page))}</article>\n" for page in sorted(FIXTURES.glob("*.html"))
    )
    return (
        "<!doctype html><html><head><meta charset='utf-8'><title>Digest</title></head>"
        f"<body><main>\n{articles}</main></body></html>"
    )


def repeated_article_page() -> str:
    wiki = (FIXTURES / "en.wikipedia.org.tsne.html").read_text(encoding="utf-8")
    start, end = wiki.index("<body"), wiki.rindex("</body>")
    return wiki[:end] + wiki[start:end] * 9 + wiki[end:]


def full_extraction(html: str) -> str:
    """trafilatura's markdown of the raw page, with every algorithm it has (no `fast`)."""
    import trafilatura

    return (
        trafilatura.extract(
            html,
            output_format="markdown",
            include_tables=True,
            include_links=True,
            include_formatting=True,
            include_comments=False,
            include_images=False,
            with_metadata=False,
        )
        or ""
    ).strip()
