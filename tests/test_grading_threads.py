"""Grading does not depend on scheduling: a pool's workers grade at once, and each verdict
is the one the same attempt gets graded alone.

The stemmed keyword match goes through Snowball stemmers, which keep the word they work on
in the object: shared between threads they returned wrong stems or raised. Here four
threads match thousands of fresh word pairs at once, and every answer is compared with a
separate process that matched the same pairs alone.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
import threading
from pathlib import Path

from agenttest import text

from ._patience import EVENTUALLY_S

_SUFFIXES = ("", "s", "ed", "ing", "ness", "ations", "ly", "ler", "lar", "de", "dan", "ları", "si")


def _pairs(n: int) -> list[tuple[str, str]]:
    rng = random.Random(32)
    out = []
    for _ in range(n):
        root = "".join(rng.choice("bcdfgklmnprstvz") + rng.choice("aeiou") for _ in range(3))
        out.append((root + rng.choice(_SUFFIXES), root + rng.choice(_SUFFIXES)))
    return out


def _spans(pairs: list[tuple[str, str]]) -> list[object]:
    out: list[object] = []
    for value, word in pairs:
        try:
            out.append(text.find_all(text.haystack(f"x {word} y"), value, stem=True))
        except Exception as exc:  # what a race raised, to compare with the alone answer
            out.append(f"raised {type(exc).__name__}")
    return out


_ALONE = """
import json, sys
from agenttest import text
pairs = json.load(open(sys.argv[1]))
print(json.dumps([text.find_all(text.haystack(f"x {w} y"), v, stem=True) for v, w in pairs]))
"""


def test_stemmed_matching_in_four_threads_answers_as_one_process_alone(tmp_path: Path) -> None:
    pairs = _pairs(8_000)
    quarters = [pairs[i::4] for i in range(4)]
    got: dict[int, list[object]] = {}
    start = threading.Barrier(4, timeout=EVENTUALLY_S)

    def match(i: int) -> None:
        start.wait()
        got[i] = _spans(quarters[i])

    switch = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # threads take turns as often as they can
    try:
        threads = [threading.Thread(target=match, args=(i,)) for i in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(EVENTUALLY_S)
    finally:
        sys.setswitchinterval(switch)
    alone_file = tmp_path / "pairs.json"
    alone_file.write_text(json.dumps(pairs), encoding="utf-8")
    alone = json.loads(
        subprocess.run(
            [sys.executable, "-c", _ALONE, str(alone_file)],
            capture_output=True,
            text=True,
            check=True,
            timeout=EVENTUALLY_S,
        ).stdout
    )
    wrong = [
        (quarters[i][j], answer, alone[j * 4 + i])
        for i in range(4)
        for j, answer in enumerate(got[i])
        if answer != alone[j * 4 + i]
    ]
    assert any(alone), "precondition: some pairs match only through the stemmers"
    assert not wrong, f"{len(wrong)} answers differ from the answer alone, e.g. {wrong[:3]}"
