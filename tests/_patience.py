"""How long a test waits for something that must happen.

A test never measures the machine: CI runs the suite while another process keeps both
cores busy, and there a child Python can take tens of seconds to start, import and reach
the point a test waits for. So a wait for an event that must come (a child blocking, a
turn arriving, a process exiting after a signal) is bounded only to turn a real hang into
a failure, never to say "too slow". Waits that are *meant* to expire (a negative check, a
poll step) keep their own small numbers.
"""

from __future__ import annotations

#: upper bound for a wait on something that must happen; reached only by a hang
EVENTUALLY_S = 600.0
