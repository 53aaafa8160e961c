"""Time HTML → markdown conversion (decode + trafilatura + render) on each fixture page.

Run: python benchmarks/bench_convert.py [--repeat N]. Prints the median per page; the largest page
is marked, since it bounds how long one WebFetch spends converting. Then the two kinds of 1 MB
page (tests/web/big_pages.py): characters kept, and their share of what trafilatura's full
extraction of the raw page keeps, beside the time.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

from agent_tui.web.convert import decode_body, html_to_markdown, render_document

FIXTURES = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "html"
sys.path.insert(0, str(FIXTURES.parent.parent / "web"))
from big_pages import full_extraction, many_articles_page, repeated_article_page  # noqa: E402


def convert(body: bytes) -> str:
    text, _ = decode_body(body, None, html=True)
    return render_document(html_to_markdown(text, "https://example.com/"), "https://example.com/")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()

    pages = sorted(FIXTURES.glob("*.html"), key=lambda p: p.stat().st_size)
    largest = pages[-1]
    convert(pages[0].read_bytes())  # warm up imports and lxml
    print(f"{'page':40} {'html KB':>8} {'md chars':>9} {'median ms':>10}")
    for page in pages:
        body = page.read_bytes()
        times = []
        for _ in range(args.repeat):
            start = time.perf_counter()
            markdown = convert(body)
            times.append(time.perf_counter() - start)
        mark = "  <- largest" if page == largest else ""
        median_ms = statistics.median(times) * 1000
        print(f"{page.name:40} {len(body) / 1024:8.1f} {len(markdown):9} {median_ms:10.1f}{mark}")
    # The two kinds of 1 MB page: many distinct articles, and one article ten times over. What
    # conversion keeps is set beside what trafilatura's full extraction of the raw page keeps.
    print(
        f"\n{'1 MB page':28} {'html KB':>8} {'kept':>8} {'full':>8} {'kept %':>7} {'median ms':>10}"
    )
    for name, html in (
        ("many distinct articles", many_articles_page()),
        ("wikipedia x10", repeated_article_page()),
    ):
        full = len(full_extraction(html))
        times = []
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            markdown = html_to_markdown(html, "https://example.com/").markdown
            times.append(time.perf_counter() - t0)
        spread = f"{min(times) * 1000:.0f}-{max(times) * 1000:.0f}"
        print(
            f"{name:28} {len(html.encode()) / 1024:8.1f} {len(markdown):8} {full:8} "
            f"{100 * len(markdown) / full:6.1f}% {statistics.median(times) * 1000:10.1f}"
            f"  (spread {spread} ms; goal <= 300)"
        )


if __name__ == "__main__":
    main()
