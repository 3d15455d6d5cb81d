"""A block's faults during one attempt: which hosted call fails on purpose, and how.

A fault with ``calls: N`` hits the first N calls of its tool in the attempt; without it,
every call. Several faults on one tool are checked in the block's order and the first that
still applies wins, so a block can say "the first call times out, the next is rate
limited".
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass, field

from agenttest.blocks import Fault


@dataclass
class FaultState:
    """The faults of one attempt and how many calls each tool has had so far."""

    faults: Sequence[Fault] = ()
    calls: dict[str, int] = field(default_factory=dict)
    fired: int = 0
    # an agent may call tools in parallel: the counts must not race
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def next_fault(self, tool: str) -> Fault | None:
        """Count a call of ``tool`` and return the fault it meets, if any (counted as fired)."""
        with self._lock:
            n = self.calls.get(tool, 0) + 1
            self.calls[tool] = n
            for fault in self.faults:
                if fault.tool == tool and (fault.calls is None or n <= fault.calls):
                    self.fired += 1
                    return fault
        return None
