"""How big and how slow is the HTML report's attempt viewer?

For a 65-block k = 5 run (325 attempts) and a 5,000-attempt run (1,000 blocks × k = 5),
each attempt with a realistic turn (prompt, a 370-character reply, a tool call, a trace,
two criteria with evidence), this measures, against the same report *without* the viewer
in the same run:

* the HTML file size;
* the time to build and render it in Python (best of ``--repeat``);
* in headless Chromium (when installed): the time from navigation to the end of the load
  event, best of ``--repeat`` loads (the viewer lists its first 100 rows at load), the time to open one attempt,
  and the time to filter by verdict and to search every text of every attempt.

    python benchmarks/viewer_size.py [--repeat 3] [--data DIR]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from agenttest.reporting import build_report, render  # noqa: E402
from benchmarks.report_throughput import generate  # noqa: E402

SIZES = {"65 blocks x k=5": (325, 5), "5,000 attempts": (5000, 5)}


def html(path: Path, viewer: bool) -> str:
    return render(build_report([path], viewer=viewer), "html")


def best(repeat: int, path: Path, viewer: bool) -> tuple[float, str]:
    times, text = [], ""
    for _ in range(repeat):
        start = time.perf_counter()
        text = html(path, viewer)
        times.append(time.perf_counter() - start)
    return min(times), text


def browser_times(page: Path, repeat: int) -> dict[str, float] | None:
    try:
        from tests._cdp import CHROMIUM, Browser
    except ImportError:
        return None
    if CHROMIUM is None:
        return None
    with Browser(1280, 900) as b:
        load = float("inf")
        for _ in range(repeat):  # best of: the first load also warms the browser up
            b.open(page.as_uri())
            load = min(
                load,
                b.js(
                    "(() => { const n = performance.getEntriesByType('navigation')[0];"
                    " return n.loadEventEnd - n.startTime; })()"
                ),
            )
        if b.js("!!document.getElementById('v-rows')") is not True:
            return {"load_ms": float(load)}
        timed = "(() => {{ const t = performance.now(); {}; return performance.now() - t; }})()"
        open_ms = b.js(timed.format("document.querySelector('#v-rows button.open').click()"))
        filter_ms = b.js(
            timed.format(
                "const e = document.getElementById('f-verdict'); e.value = 'FAIL';"
                " e.dispatchEvent(new Event('change'))"
            )
        )
        # search: the input handler waits 150 ms for typing to stop; time the change that
        # follows instead (the same refresh, with the reply text compared)
        search_ms = b.js(
            timed.format(
                "document.getElementById('f-q').value = 'ordinary paragraph';"
                " const v = document.getElementById('f-verdict'); v.value = '';"
                " v.dispatchEvent(new Event('change'))"
            )
        )
        rows = b.js("document.getElementById('v-count').textContent")
    return {
        "load_ms": float(load),
        "open_ms": float(open_ms),
        "filter_ms": float(filter_ms),
        "search_ms": float(search_ms),
        "rows": rows,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--data", type=Path, default=HERE / ".data")
    args = parser.parse_args()
    args.data.mkdir(parents=True, exist_ok=True)
    (args.data / ".gitignore").write_text("*\n", encoding="utf-8")
    with tempfile.TemporaryDirectory() as tmp:
        for label, (attempts, k) in SIZES.items():
            path = args.data / f"run_viewer_{attempts}_k{k}.jsonl"
            if not path.exists():
                generate(path, attempts, k=k)
            plain_s, plain = best(args.repeat, path, False)
            viewer_s, full = best(args.repeat, path, True)
            print(f"== {label}: {attempts:,} attempts, run file {path.stat().st_size / 1e6:.1f} MB")
            print(
                f"html size        : {len(full.encode()) / 1e6:6.2f} MB with the viewer, "
                f"{len(plain.encode()) / 1e6:6.2f} MB without "
                f"({len(full) / len(plain):.1f}x)"
            )
            print(
                f"build + render   : {viewer_s:6.2f} s with the viewer, {plain_s:6.2f} s "
                f"without ({viewer_s / plain_s:.2f}x)"
            )
            pages = {}
            for name, text in (("viewer", full), ("plain", plain)):
                pages[name] = Path(tmp) / f"{attempts}_{name}.html"
                pages[name].write_text(text, encoding="utf-8")
            with_viewer = browser_times(pages["viewer"], args.repeat)
            without = browser_times(pages["plain"], args.repeat)
            if with_viewer is None or without is None:
                print("chromium       : not installed, browser times skipped")
                continue
            print(
                f"chromium load    : {with_viewer['load_ms']:6.0f} ms with the viewer, "
                f"{without['load_ms']:6.0f} ms without "
                f"({with_viewer['load_ms'] / without['load_ms']:.2f}x)"
            )
            print(
                f"viewer actions   : open an attempt {with_viewer['open_ms']:.1f} ms, "
                f"filter by verdict {with_viewer['filter_ms']:.1f} ms, search every text "
                f"{with_viewer['search_ms']:.1f} ms ({with_viewer['rows']})"
            )


if __name__ == "__main__":
    main()
