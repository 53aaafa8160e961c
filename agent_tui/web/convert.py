"""Turning a fetched body into text: charset detection, HTML → markdown, content kinds.

HTML goes through trafilatura (boilerplate removed; tables, links, formatting and code kept). Code
that syntax highlighters split into `<span>`s inside a bare `<pre>` is flattened into
`<pre><code>` first, because trafilatura fences only `<code>` blocks. When trafilatura finds no
main content, the page's plain text is used instead so the model still gets something.
"""

from __future__ import annotations

import codecs
import re
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

# trafilatura and lxml take ~200 ms to import: they load with the first page converted, not with
# the agent (which would put them on every session's path to its first prompt).
if TYPE_CHECKING:
    from lxml import html as lxml_html

Kind = Literal["html", "markdown", "text", "json", "binary"]

_HTML_TYPES = frozenset({"text/html", "application/xhtml+xml"})
_MARKDOWN_TYPES = frozenset({"text/markdown", "text/x-markdown"})
_TEXT_APPLICATION_TYPES = frozenset(
    {
        "application/xml",
        "application/javascript",
        "application/x-javascript",
        "application/ecmascript",
        "application/yaml",
        "application/x-yaml",
        "application/toml",
        "application/x-sh",
        "application/sql",
        "application/graphql",
    }
)
# Labels that browsers decode as windows-1252 (WHATWG Encoding), because that is what such pages
# really are: "iso-8859-1" pages routinely contain curly quotes in 0x80-0x9f.
_WINDOWS_1252_LABELS = frozenset(
    {"iso-8859-1", "iso8859-1", "latin1", "latin-1", "ascii", "us-ascii"}
)
_META_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?\s*([a-zA-Z0-9_.:-]+)""", re.I)
_BOMS = (
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)


@dataclass(frozen=True, slots=True)
class ContentType:
    mime: str
    charset: str | None

    @classmethod
    def parse(cls, header: str) -> ContentType:
        mime, _, params = header.partition(";")
        charset = None
        for param in params.split(";"):
            name, _, value = param.partition("=")
            if name.strip().lower() == "charset":
                charset = value.strip().strip("\"'") or None
        return cls(mime.strip().lower(), charset)


@dataclass(frozen=True, slots=True)
class Document:
    title: str | None
    markdown: str
    #: "trafilatura", or "fallback" when trafilatura found no main content
    method: str


def content_kind(mime: str, body: bytes) -> Kind:
    if mime in _HTML_TYPES:
        return "html"
    if mime in _MARKDOWN_TYPES:
        return "markdown"
    if mime == "application/json" or mime.endswith("+json"):
        return "json"
    if mime.startswith("text/") or mime in _TEXT_APPLICATION_TYPES or mime.endswith("+xml"):
        return "text"
    if mime in ("", "application/octet-stream") and not mime_is_binary_sniff(body):
        head = body[:1024].lstrip().lower()
        return "html" if head.startswith((b"<!doctype html", b"<html")) else "text"
    return "binary"


def mime_is_binary_sniff(body: bytes) -> bool:
    """A body with NUL bytes or invalid UTF-8 early on is binary (unless it has a text BOM)."""
    head = body[:4096]
    if any(head.startswith(bom) for bom, _ in _BOMS):
        return False
    if b"\x00" in head:
        return True
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as exc:
        return exc.start < len(head) - 4  # a multibyte character cut at the end is fine
    return False


def decode_body(body: bytes, header_charset: str | None, *, html: bool) -> tuple[str, str]:
    """Decode `body`: BOM, then the header's charset, then `<meta>`, then UTF-8, then cp1252.

    Returns the text and the encoding used.
    """
    for bom, encoding in _BOMS:
        if body.startswith(bom):
            return body.decode(encoding, errors="replace"), encoding
    candidates: list[str | None] = [header_charset]
    if html:
        match = _META_CHARSET.search(body[:4096])
        candidates.append(match.group(1).decode("ascii") if match else None)
    for label in candidates:
        codec = _codec(label)
        if codec:
            return body.decode(codec, errors="replace"), codec
    try:
        return body.decode("utf-8"), "utf-8"
    except UnicodeDecodeError:
        return body.decode("cp1252", errors="replace"), "cp1252"


def html_to_markdown(text: str, url: str | None = None) -> Document:
    """Main content of an HTML page as markdown, with the page title."""
    tree = _parse(text)
    if tree is None:
        return Document(None, "", "fallback")
    title = _title(tree)
    base = _base_url(tree, url)
    _fence_highlighted_code(tree)
    _drop_what_trafilatura_drops(tree)
    import trafilatura

    markdown = trafilatura.extract(
        tree,
        # No url: trafilatura would resolve every link of the page, boilerplate included (a
        # third of its time on a big page), and against the site's root rather than the page.
        # The links that survive extraction are resolved below, as a browser would.
        url=None,
        # Never `fast`, whatever the page's size: it skips the second opinions (readability,
        # jusText), and on a page of many articles jusText's is the one that keeps them all
        # (fast mode kept 899 of 150,445 characters of such a page).
        fast=False,
        output_format="markdown",
        include_tables=True,
        include_links=True,
        include_formatting=True,
        include_comments=False,
        include_images=False,
        with_metadata=False,
    )
    if markdown and markdown.strip():
        markdown = absolute_links(markdown.strip(), base) if base else markdown.strip()
        return Document(title, markdown, "trafilatura")
    fallback = _parse(text)
    plain = trafilatura.html2txt(fallback) if fallback is not None else ""
    return Document(title, _squeeze(plain or ""), "fallback")


def render_document(doc: Document, url: str) -> str:
    """The page as the model sees it: title and URL on top, then the content."""
    head = f"# {doc.title}\n\n" if doc.title else ""
    note = (
        "\n\n(No main content was found; this is the page's plain text.)"
        if doc.method == "fallback"
        else ""
    )
    body = doc.markdown or "(The page has no readable text.)"
    return f"{head}URL: {url}{note}\n\n{body}"


def _codec(label: str | None) -> str | None:
    if not label:
        return None
    label = label.strip().lower()
    if label in _WINDOWS_1252_LABELS:
        return "cp1252"
    try:
        name = codecs.lookup(label).name
    except LookupError:
        return None
    # A page cannot really be UTF-16 and still have an ASCII <meta> we could read.
    return "utf-8" if name.startswith("utf-16") else name


def _parse(text: str) -> lxml_html.HtmlElement | None:
    from lxml import etree
    from lxml import html as lxml_html

    # lxml refuses str input that carries an XML encoding declaration; the text is decoded already.
    text = re.sub(r"^\s*<\?xml[^>]*\?>", "", text, count=1)
    if not text.strip():
        return None
    try:
        return lxml_html.document_fromstring(text, parser=_html_parser())
    except (etree.ParserError, ValueError):
        return None


_parsers = threading.local()


def _html_parser() -> Any:
    """lxml.html's parser with its element classes chosen in C: every element an `HtmlElement`
    (comments, processing instructions and entities their lxml.html classes), where lxml.html's
    own lookup calls Python for each element object made — ~100,000 times converting a 1 MB
    page — only to give form fields subclasses that nothing here uses. Same trees, same
    markdown (tested on every fixture page). One per thread: lxml parsers are not shared."""
    parser = getattr(_parsers, "parser", None)
    if parser is None:
        from lxml import etree
        from lxml import html as lxml_html

        parser = lxml_html.HTMLParser()
        parser.set_element_class_lookup(
            etree.ElementDefaultClassLookup(
                element=lxml_html.HtmlElement,
                comment=lxml_html.HtmlComment,
                pi=lxml_html.HtmlProcessingInstruction,
                entity=lxml_html.HtmlEntity,
            )
        )
        _parsers.parser = parser
    return parser


_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:")
_MD_LINK = re.compile(r"\]\(([^)\s]+)\)")
_MD_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})")


def _base_url(tree: lxml_html.HtmlElement, url: str | None) -> str | None:
    """What relative links are relative to: the page's `<base href>`, else its URL."""
    if not url:
        return None
    from urllib.parse import urljoin

    found = tree.xpath("//head/base/@href")
    return urljoin(url, str(found[0]).strip()) if found and str(found[0]).strip() else url


def absolute_links(markdown: str, base: str) -> str:
    """Markdown with every relative link target resolved against `base` (RFC 3986, as
    browsers do); code blocks and inline code are left exactly as they are."""
    from functools import cache
    from urllib.parse import urljoin

    @cache
    def resolve(target: str) -> str:
        return target if _SCHEME.match(target) else urljoin(base, target)

    def fix(m: re.Match[str]) -> str:
        return f"]({resolve(m.group(1))})"

    out: list[str] = []
    fence: str | None = None
    for line in markdown.split("\n"):
        opening = _MD_FENCE.match(line)
        if fence is not None:
            if opening and opening.group(1)[0] == fence[0] and len(opening.group(1)) >= len(fence):
                fence = None
        elif opening:
            fence = opening.group(1)
        elif "](" in line:
            parts = line.split("`")
            parts[::2] = [_MD_LINK.sub(fix, part) for part in parts[::2]]
            line = "`".join(parts)
        out.append(line)
    return "\n".join(out)


def _title(tree: lxml_html.HtmlElement) -> str | None:
    for xpath in ('//meta[@property="og:title"]/@content', "//title//text()", "//h1//text()"):
        found = " ".join(str(t) for t in tree.xpath(xpath)).strip()
        if found:
            return re.sub(r"\s+", " ", found)[:300]
    return None


def _fence_highlighted_code(tree: lxml_html.HtmlElement) -> None:
    for pre in list(tree.iter("pre")):
        if pre.find(".//code") is not None:
            continue
        text = pre.text_content()
        for child in list(pre):
            pre.remove(child)
        pre.text = None
        code = pre.makeelement("code", {})
        pre.append(code)
        code.text = text


# Elements trafilatura deletes, subtree and all, before it reads any text: leaves that never hold
# prose (so its "keep the paragraphs" recall rule never needs them back) and that none of its
# earlier XPath prunes look at. Only the ones trafilatura still lists are deleted.
_NEVER_PROSE: tuple[str, ...] = ("math", "svg", "style", "canvas", "audio", "video", "picture")
_NEVER_PROSE += ("object", "embed", "iframe", "select", "datalist", "input", "link", "source")
_NEVER_PROSE += ("track", "param")


def _drop_what_trafilatura_drops(tree: lxml_html.HtmlElement) -> None:
    """Delete, in one C-level pass each, what trafilatura would delete or unwrap anyway.

    trafilatura walks the whole raw tree with slow XPath predicates (about half a microsecond a
    node) several times before its own cleaning; on a 1 MB page MathML alone is 40% of the
    nodes. Deleting them first is the same extraction (formulas are kept as LaTeX by
    trafilatura's own `recover_math`, run here first) on a smaller tree.
    """
    from lxml import etree

    try:
        from trafilatura.htmlprocessing import recover_math
        from trafilatura.settings import MANUALLY_CLEANED, MANUALLY_STRIPPED
    except ImportError:  # a trafilatura laid out otherwise: it gets the whole tree, as before
        return
    recover_math(tree)
    etree.strip_elements(tree, *(t for t in _NEVER_PROSE if t in MANUALLY_CLEANED), with_tail=False)
    # Unwrapped, text kept; "meta" stays for the title, which was read already, and for
    # trafilatura's own checks.
    etree.strip_tags(tree, *(t for t in MANUALLY_STRIPPED if t != "meta"))


def _squeeze(text: str) -> str:
    return re.sub(r"\n{3,}", "\n\n", text).strip()
