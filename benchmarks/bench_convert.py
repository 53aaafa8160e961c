"""Time HTML → markdown conversion (decode + trafilatura + render) on each fixture page.

Run: python benchmarks/bench_convert.py [--repeat N]. Prints the median per page; the largest page
is marked, since it bounds how long one WebFetch spends converting.
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from agent_tui.web.convert import decode_body, html_to_markdown, render_document

FIXTURES = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "html"


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
    # A content-heavy 1 MB page: the Wikipedia article's body ten times over.
    wiki = (FIXTURES / "en.wikipedia.org.tsne.html").read_text(encoding="utf-8")
    start, end = wiki.index("<body"), wiki.rindex("</body>")
    big = (wiki[:end] + wiki[start:end] * 9 + wiki[end:]).encode()
    times = []
    for _ in range(args.repeat):
        t0 = time.perf_counter()
        markdown = convert(big)
        times.append(time.perf_counter() - t0)
    spread = f"{min(times) * 1000:.0f}-{max(times) * 1000:.0f}"
    median_ms = statistics.median(times) * 1000
    print(
        f"{'1 MB page (wikipedia x10)':40} {len(big) / 1024:8.1f} {len(markdown):9} "
        f"{median_ms:10.1f}  (spread {spread} ms; goal <= 300)"
    )


if __name__ == "__main__":
    main()
