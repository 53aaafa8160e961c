"""HTML → markdown on the twelve real pages (served from loopback, through the whole tool), plus
charset detection and the conversion's edge cases."""

from __future__ import annotations

import csv
import re

import pytest
from web_helpers import FIXTURES, FakeProvider, Server, make_ctx, static

from agent_tui.tools.builtin.web_fetch import WebFetchInput, WebFetchTool
from agent_tui.web import convert
from agent_tui.web.convert import (
    ContentType,
    content_kind,
    decode_body,
    html_to_markdown,
    render_document,
)

PAGES = list(csv.DictReader((FIXTURES / "MANIFEST.tsv").open(encoding="utf-8"), delimiter="\t"))
# Where a link sits inside a snippet, the markdown reads "a [Student t-distribution](/wiki/...)";
# the snippet is there, as link text. Only these pages need that reading; all others match raw.
LINK_SPLIT_PAGES = {"en.wikipedia.org.tsne.html"}


def plain(markdown: str) -> str:
    """Markdown read as text: links as their text, emphasis and escapes dropped."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", markdown)
    text = text.replace("**", "").replace("__", "")
    return re.sub(r"\\([\\`*_{}\[\]()#+\-.!|])", r"\1", text)


def test_manifest_has_twelve_pages() -> None:
    assert len(PAGES) == 12


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p["filename"])
async def test_page_extraction_quality(page: dict[str, str], server: Server, tmp_path) -> None:
    body = (FIXTURES / page["filename"]).read_bytes()
    server.route("/page", static(200, body, {"content-type": "text/html"}))
    provider = FakeProvider()
    ctx, _ = make_ctx(tmp_path, provider=provider)

    out = await WebFetchTool().run(WebFetchInput(url=server.url("/page"), prompt="Summarise"), ctx)

    assert not out.is_error, out.content
    (request,) = provider.requests
    user = request.messages[0]["content"]
    markdown = re.search(r"<page-(\w+)>\n(.*)\n</page-\1>", user, re.S).group(2)
    assert markdown.startswith("# ")  # title on top
    assert f"URL: {server.url('/page')}" in markdown[:1000]
    for snippet in page["must_contain"].split("|"):
        if page["filename"] in LINK_SPLIT_PAGES:
            assert snippet in plain(markdown), snippet
        else:
            assert snippet in markdown, snippet
    for snippet in page["must_not_contain"].split("|"):
        assert snippet not in plain(markdown), snippet


def test_highlighted_code_becomes_a_fenced_block() -> None:
    html = (FIXTURES / "caktusgroup.com.django.html").read_text(encoding="utf-8")
    doc = html_to_markdown(html)
    assert "```\nimport os\nfrom django.conf import settings" in doc.markdown
    assert "override_settings" in doc.markdown  # no markdown escaping inside code


def test_tables_and_links_are_kept() -> None:
    filler = "<p>" + "This paragraph is the main text of the article. " * 12 + "</p>"
    html = (
        "<html><head><title>T</title></head><body><nav><a href='/'>Home</a> | Menu</nav>"
        f"<article><h1>Heading</h1>{filler}<p>See <a href='https://example.com/x'>the docs</a>.</p>"
        "<table><tr><th>name</th><th>value</th></tr><tr><td>alpha</td><td>1</td></tr></table>"
        f"{filler}</article><footer>Copyright footer</footer></body></html>"
    )
    doc = html_to_markdown(html, "https://example.com/")
    assert "[the docs](https://example.com/x)" in doc.markdown
    assert "| name | value |" in doc.markdown
    assert "| alpha | 1 |" in doc.markdown
    assert doc.title == "T"


def test_fallback_when_no_main_content() -> None:
    doc = html_to_markdown("<html><head><title>Tiny</title></head><body></body></html>")
    rendered = render_document(doc, "https://example.com/")
    assert rendered.startswith("# Tiny\n\nURL: https://example.com/")
    assert doc.method == "fallback"
    assert html_to_markdown("").markdown == ""


@pytest.mark.parametrize(
    ("body", "header", "html", "text", "encoding"),
    [
        ("Grüße".encode(), None, False, "Grüße", "utf-8"),
        ("Grüße".encode("latin-1"), "ISO-8859-1", False, "Grüße", "cp1252"),
        ("“quoted”".encode("cp1252"), "iso-8859-1", False, "“quoted”", "cp1252"),
        ("Grüße".encode("latin-1"), None, False, "Grüße", "cp1252"),
        (b'<meta charset="windows-1252"><p>caf\xe9</p>', None, True, "café", "cp1252"),
        (
            '<meta http-equiv="Content-Type" content="text/html; charset=Shift_JIS">'
            "<p>日本</p>".encode("shift_jis"),
            None,
            True,
            "日本",
            "shift_jis",
        ),
        ("Grüße".encode(), "utf-8", True, "Grüße", "utf-8"),
        ("\ufeffBOM wins".encode(), "latin-1", False, "BOM wins", "utf-8-sig"),
        (b"x", "no-such-charset", False, "x", "utf-8"),
    ],
)
def test_charset_detection(body: bytes, header, html: bool, text: str, encoding: str) -> None:
    decoded, used = decode_body(body, header, html=html)
    assert text in decoded
    assert used == encoding


async def test_charset_from_header_through_the_tool(server: Server, tmp_path) -> None:
    server.route(
        "/latin",
        static(200, "Straße".encode("latin-1"), {"content-type": "text/plain; charset=iso-8859-1"}),
    )
    ctx, _ = make_ctx(tmp_path)
    out = await WebFetchTool().run(WebFetchInput(url=server.url("/latin"), prompt="x"), ctx)
    assert "Straße" in out.content


@pytest.mark.parametrize(
    ("mime", "body", "kind"),
    [
        ("text/html", b"<p>x</p>", "html"),
        ("application/xhtml+xml", b"<p>x</p>", "html"),
        ("text/markdown", b"# x", "markdown"),
        ("text/plain", b"x", "text"),
        ("text/csv", b"a,b", "text"),
        ("application/json", b"{}", "json"),
        ("application/ld+json", b"{}", "json"),
        ("application/pdf", b"%PDF-1.4", "binary"),
        ("image/png", b"\x89PNG", "binary"),
        ("", b"<!DOCTYPE html><html></html>", "html"),
        ("", b"plain words", "text"),
        ("application/octet-stream", b"\x00\x01\x02", "binary"),
    ],
)
def test_content_kinds(mime: str, body: bytes, kind: str) -> None:
    assert content_kind(ContentType.parse(mime).mime, body) == kind


def test_content_type_parsing() -> None:
    assert ContentType.parse('Text/HTML; Charset="UTF-8"') == ContentType("text/html", "UTF-8")
    assert ContentType.parse("") == ContentType("", None)


def test_relative_links_are_resolved_as_a_browser_would() -> None:
    from agent_tui.web.convert import absolute_links

    markdown = (
        "See [a](../b/c.html), [top](/x), [here](#part), [q](?page=2) and [abs](https://o.org/y) "
        "or [mail](mailto:me@example.com).\n"
        "Inline `arr[0](rel)` stays.\n"
        "```js\nf[0](rel)\n```\n"
        "[after](rel)"
    )
    out = absolute_links(markdown, "https://site.org/docs/guide/page.html")
    assert "[a](https://site.org/docs/b/c.html)" in out
    assert "[top](https://site.org/x)" in out
    assert "[here](https://site.org/docs/guide/page.html#part)" in out
    assert "[q](https://site.org/docs/guide/page.html?page=2)" in out
    assert "[abs](https://o.org/y)" in out and "[mail](mailto:me@example.com)" in out
    assert "`arr[0](rel)`" in out and "\nf[0](rel)\n" in out
    assert out.endswith("[after](https://site.org/docs/guide/rel)")


def test_a_base_element_sets_what_links_are_relative_to() -> None:
    filler = "<p>" + "This paragraph is the main text of the article. " * 12 + "</p>"
    html = (
        "<html><head><title>T</title><base href='https://cdn.example.org/v2/'></head><body>"
        f"<article><h1>Heading</h1>{filler}<p>Read <a href='api/intro.html'>the intro</a>."
        f"</p>{filler}</article></body></html>"
    )
    doc = html_to_markdown(html, "https://example.com/docs/index.html")
    assert "[the intro](https://cdn.example.org/v2/api/intro.html)" in doc.markdown


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p["filename"])
def test_dropping_what_trafilatura_drops_changes_no_extraction(
    page: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The early deletion is only a speed-up: every real page extracts to the same markdown."""
    text, _ = decode_body((FIXTURES / page["filename"]).read_bytes(), None, html=True)
    faster = html_to_markdown(text, "https://example.com/a/page.html")
    monkeypatch.setattr(convert, "_drop_what_trafilatura_drops", lambda tree: None)
    assert html_to_markdown(text, "https://example.com/a/page.html") == faster


def test_formulas_survive_the_early_deletion_of_mathml() -> None:
    html = (
        "<html><body><article><h1>Norms</h1>"
        + "<p>Filler sentence for the extractor to accept this article as content. </p>" * 4
        + '<p>The norm <math alttext="\\|x\\|_2"><mrow><mi>x</mi></mrow></math> is Euclidean.'
        "<svg><text>icon text</text></svg></p>"
        '<p><math display="block"><semantics><mi>y</mi>'
        '<annotation encoding="application/x-tex">y = \\sum_i x_i</annotation></semantics></math>'
        " closes it.</p></article></body></html>"
    )
    tree = convert._parse(html)
    convert._drop_what_trafilatura_drops(tree)
    assert not list(tree.iter("math", "svg", "mi"))
    markdown = html_to_markdown(html).markdown
    assert "x\\|_2" in markdown and "is Euclidean." in markdown
    assert "y = \\sum_i x_i" in markdown and "closes it." in markdown
    assert "icon text" not in markdown
