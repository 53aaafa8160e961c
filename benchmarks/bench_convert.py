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


if __name__ == "__main__":
    main()
