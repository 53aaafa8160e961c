"""Big pages keep their content: no size switches conversion to a mode that drops articles, and
the jusText speed-ups change no result."""

from __future__ import annotations

import csv
import random

import pytest
from big_pages import FIXTURES, full_extraction, many_articles_page, repeated_article_page
from test_convert import plain

from agent_tui.web import justext_speedups
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


def _whitespace_cases() -> list[str]:
    rng = random.Random(27)
    alphabet = ["a", "é", " ", "  ", "\t", "\n", "\r", "\r\n", "\x0b", "\x0c", "\x1c", "\x85"]
    alphabet += ["\xa0", "\u2028", "\u3000", "\n \n", " \t "]
    cases = ["", " ", "\n", "\r", " \n ", "a  b", "a \n b", "a\t\x0bb", "\u2028\n", "x\r\r\ny"]
    cases += ["".join(rng.choice(alphabet) for _ in range(rng.randint(1, 30))) for _ in range(5000)]
    return cases


def test_normalize_whitespace_matches_justexts_own() -> None:
    from justext.utils import normalize_whitespace as original

    for text in _whitespace_cases():
        assert justext_speedups.normalize_whitespace(text) == original(text), repr(text)


def _paragraphs(html: str) -> list[tuple[str, str, str, str, int, int]]:
    """jusText's paragraphs of a page, classified as trafilatura asks."""
    from justext.core import ParagraphMaker, classify_paragraphs, revise_paragraph_classification
    from lxml import html as lxml_html
    from trafilatura.baseline import basic_cleaning
    from trafilatura.external import jt_stoplist_init

    paragraphs = ParagraphMaker.make_paragraphs(basic_cleaning(lxml_html.document_fromstring(html)))
    classify_paragraphs(paragraphs, jt_stoplist_init(), 50, 150, 0.1, 0.2, 0.25, True)
    revise_paragraph_classification(paragraphs, 150)
    return [
        (p.text, p.class_type, p.dom_path, p.xpath, p.chars_count_in_links, p.tags_count)
        for p in paragraphs
    ]


def test_faster_paragraphs_are_justexts_own(
    many_articles: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from justext import core, paragraph, utils

    assert justext_speedups.install()
    assert justext_speedups.install()  # once is enough; again changes nothing
    assert core.Paragraph is not paragraph.Paragraph
    pages = [many_articles] + [(FIXTURES / p["filename"]).read_text("utf-8") for p in PAGES[:4]]
    faster = [_paragraphs(html) for html in pages]

    monkeypatch.setattr(core, "Paragraph", paragraph.Paragraph)
    monkeypatch.setattr(paragraph, "normalize_whitespace", utils.normalize_whitespace)
    original = [_paragraphs(html) for html in pages]

    assert faster == original
    assert sum(len(p) for p in original) > 1000


def test_a_paragraph_reads_its_text_anew_after_more_is_appended() -> None:
    from justext import core

    assert justext_speedups.install()
    path = core.PathInfo().append("body").append("p")
    para = core.Paragraph(path)
    para.append_text("one  ")
    assert para.text == "one"
    para.append_text("\n two")
    assert para.text == "one\ntwo"
    assert para.xpath == "/body[1]/p[1]"
    path.pop().append("div")
    assert para.xpath == "/body[1]/p[1]"  # the path as it was when the paragraph began


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
