"""Seven nights of `agenttest batch` against an agent that degrades, crashes and recovers.

Each night runs the real `agenttest batch` in a fresh process from a cron-like environment
(`env -i`: no TTY, only PATH, HOME and LANG=C), against a loopback agent whose behaviour
follows a schedule (``tests/_soak.py``, shared with the slow-marked ``tests/test_soak.py``).
It prints one row per night: the process exit code, the baseline the batch used and the
runs it passed over, and the night's summary line.

    python benchmarks/soak_nightly.py [--out DIR]

Expected: night 1 has no baseline; a regression against a complete baseline exits 1 (the
job is gated); a crashed or never-ready night exits 3 and is never a later baseline.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests._soak import Soak, table  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    work = args.out or Path(tempfile.mkdtemp(prefix="soak-", dir=Path.home()))
    soak = Soak(work)
    print(table([soak.night(n) for n in range(1, 8)]))
    print(f"\n(work folder: {work})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
