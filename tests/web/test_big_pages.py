"""Big pages keep their content: no size switches conversion to a mode that drops articles."""

from __future__ import annotations

import csv

import pytest
from big_pages import FIXTURES, full_extraction, many_articles_page, repeated_article_page
from test_convert import plain

from agent_tui.web.convert import html_to_markdown

PAGES = list(csv.DictReader((FIXTURES / "MANIFEST.tsv").open(encoding="utf-8"), delimiter="\t"))


@pytest.fixture(scope="module")
def many_articles() -> str:
    return many_articles_page()


def test_a_page_of_many_distinct_articles_keeps_them_all(many_articles: str) -> None:
    assert len(many_articles) > 900_000
    markdown = html_to_markdown(many_articles, "https://example.com/digest").markdown
    full = full_extraction(many_articles)

    assert len(markdown) >= 0.95 * len(full)
    # The articles are there, by the snippets their own pages' good extraction must contain:
    # every one that full extraction of the digest keeps, and so most pages' own.
    text, full_text = plain(markdown), plain(full)
    represented = set()
    for page in PAGES:
        for snippet in page["must_contain"].split("|"):
            if snippet in full_text:
                assert snippet in text, (page["filename"], snippet)
            if snippet in text:
                represented.add(page["filename"])
    assert len(represented) >= 10, sorted(represented)


def test_a_page_of_one_article_repeated_keeps_what_full_extraction_keeps() -> None:
    html = repeated_article_page()
    assert len(html) > 900_000
    markdown = html_to_markdown(html, "https://example.com/wiki").markdown

    assert len(markdown) >= 0.95 * len(full_extraction(html))
    assert "Herein a heavy-tailed Student t-distribution" in plain(markdown)


def test_elements_made_without_lxml_htmls_python_lookup_convert_the_same(
    many_articles: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The parser whose element classes are chosen in C is only a speed-up: every page, the big
    ones included, converts to the same markdown as with lxml.html's own parser."""
    from lxml import html as lxml_html

    from agent_tui.web import convert
    from agent_tui.web.convert import decode_body

    pages = [many_articles, repeated_article_page()]
    pages += [
        decode_body((FIXTURES / p["filename"]).read_bytes(), None, html=True)[0] for p in PAGES
    ]
    faster = [html_to_markdown(html, "https://example.com/a/page.html") for html in pages]
    assert isinstance(convert._parse(pages[0]), lxml_html.HtmlElement)
    monkeypatch.setattr(convert, "_html_parser", lambda: lxml_html.html_parser)
    assert [html_to_markdown(html, "https://example.com/a/page.html") for html in pages] == faster


def test_conversions_in_parallel_threads_each_get_their_own_parser() -> None:
    from concurrent.futures import ThreadPoolExecutor

    from agent_tui.web.convert import decode_body

    texts = [
        decode_body((FIXTURES / p["filename"]).read_bytes(), None, html=True)[0] for p in PAGES
    ]
    alone = [html_to_markdown(t, "https://example.com/") for t in texts]
    with ThreadPoolExecutor(4) as pool:
        together = list(pool.map(lambda t: html_to_markdown(t, "https://example.com/"), texts * 2))
    assert together == alone * 2
