"""Tickets for the rules brain: list, show, and move a ticket (a hosted ``ticket`` tool).

The bundled agent has no ticket store of its own: ``ticket`` is a tool of the harness's
host (``--hosted-tools``). A move whose answer is a failure, or nothing at all, is not the
end of it: the move may have gone through while its answer was lost, so the agent looks at
the ticket and reports the state the ticket shows, not the answer it was handed.
"""

from __future__ import annotations

import re

from ._agent import Turn
from ._rules_files import Intent
from ._rules_replies import say

_ID = r"([A-Za-z0-9][A-Za-z0-9._-]*[A-Za-z0-9])"
_STATE = r"[\"'`]?([\w-]+)[\"'`]?"
_MOVE_EN = re.compile(
    rf"\b(?:move|set|mark|transition|put|change)\s+(?:the\s+)?ticket\s+{_ID}\s+"
    rf"(?:to|as|into)\s+(?:the\s+)?(?:state\s+)?{_STATE}",
    re.I,
)
_MOVE_TR = re.compile(
    rf"{_ID}\s+(?:numaral[ıi]\s+)?(?:kayd\w*|bilet\w*|ticket\w*)\s+{_STATE}\s+durumuna\s+"
    r"(?:ta[şs][ıi]|al|getir|çek|cek)",
    re.I,
)
_SHOW_EN = re.compile(
    rf"\b(?:show|check|get|look at|what(?:'s| is) the (?:state|status) of)\s+(?:the\s+)?"
    rf"ticket\s+{_ID}",
    re.I,
)
_SHOW_TR = re.compile(
    rf"{_ID}\s+(?:numaral[ıi]\s+)?(?:kayd\w*|bilet\w*)\s+(?:durumu|g[öo]ster)", re.I
)
_LIST = re.compile(
    r"\b(?:list|show)\s+(?:me\s+)?(?:all\s+|the\s+|my\s+)*tickets\b|"
    r"\b(?:kay[ıi]tlar\w*|biletler\w*)\s+(?:listele|g[öo]ster)",
    re.I,
)
_SHOWN_STATE = re.compile(r"\[state: ([^;\]]+)")


def ticket_intent(text: str) -> Intent | None:
    """A ticket request: move one to a state, show one, or list them."""
    m = _MOVE_EN.search(text) or _MOVE_TR.search(text)
    if m:
        call = {"action": "move", "ticket_id": m.group(1), "state": m.group(2)}
        return Intent("ticket", "tool", "ticket", [call], detail="move")
    m = _SHOW_EN.search(text) or _SHOW_TR.search(text)
    if m:
        return Intent("ticket", "tool", "ticket", [{"action": "show", "ticket_id": m.group(1)}])
    if _LIST.search(text):
        return Intent("ticket", "tool", "ticket", [{"action": "list"}])
    return None


def run_ticket(turn: Turn, intent: Intent, tr: bool) -> str:
    """Run the request; a move that failed or answered nothing is followed by a look at the
    ticket."""
    args = intent.calls[0]
    out = turn.call("ticket", args)
    if intent.detail != "move":
        return out.text if out.ok else say(tr, f"That did not work: {out.text}",
                                           f"Bu olmadı: {out.text}")  # fmt: skip
    tid, state = str(args["ticket_id"]), str(args["state"])
    if out.ok and out.text.strip():
        return say(tr, f"Ticket {tid} is now {state} ({out.text}).",
                   f"{tid} numaralı kayıt artık {state} durumunda ({out.text}).")  # fmt: skip
    why = out.text if not out.ok else say(tr, "the service's answer was empty", "yanıt boştu")
    failed = say(tr, f"I could not move ticket {tid} to {state}: {why}.",
                 f"{tid} numaralı kayıt {state} durumuna taşınamadı: {why}.")  # fmt: skip
    if out.status not in ("ok", "error"):  # refused by a guard, or it never reached the host
        return failed
    check = turn.call("ticket", {"action": "show", "ticket_id": tid})
    shown = _SHOWN_STATE.search(check.text) if check.ok else None
    if shown is None:
        return failed + say(tr, f" I could not check the ticket either: {check.text}",
                            f" Kaydı kontrol de edemedim: {check.text}")  # fmt: skip
    now = shown.group(1).strip()
    if now == state:  # the move went through; only its answer was lost
        return say(
            tr,
            f"Ticket {tid} is now {state}. The move's answer did not confirm it, so I looked "
            f"at the ticket: it shows state {state}.",
            f"{tid} numaralı kayıt artık {state} durumunda. Taşıma yanıtı bunu doğrulamadı; "
            f"kayda baktım: durumu {state}.",
        )
    return failed + say(tr, f" The ticket shows state {now}.", f" Kaydın durumu: {now}.")
