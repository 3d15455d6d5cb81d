"""The tools whose state is a harness file of the world: memory, tickets, messages, contacts,
weather, and the clock (the one tool with no state).

* ``memory``: ``.memory/notes.jsonl``, one ``{"text": ...}`` a line: save, recall, reset.
* ``ticket``: ``.tickets/<id>.json`` = ``{"id", "title", "state", "transitions"}``: list,
  show, move (only along a transition the ticket allows).
* ``message``: appends ``{"recipient", "text"}`` to ``.outbox/messages.jsonl``.
* ``contacts``: ``.data/contacts.json``, a list of ``{"name", ...}``.
* ``weather``: ``.data/weather.json``, ``{city: {"today": {...}, "tomorrow": {...}}}``; a
  world without one is answered from the harness's sample (``agenttest/data/hosted_weather.json``).
"""

from __future__ import annotations

import functools
import json
import re
from datetime import datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from agenttest.text import fold

from ._world import ToolFailure, World, str_arg

MEMORY = (".memory", "notes.jsonl")
OUTBOX = (".outbox", "messages.jsonl")
MEMORY_ACTIONS = ("save", "recall", "reset")
TICKET_ACTIONS = ("list", "show", "move")
_TICKET_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")


def clock(world: World, args: dict[str, Any]) -> str:
    name = str_arg(args, "timezone").strip()
    try:
        zone = ZoneInfo(name) if name else None
    except (ZoneInfoNotFoundError, ValueError):
        raise ToolFailure(
            f"unknown time zone {name!r} (an IANA name, e.g. Europe/Istanbul)"
        ) from None
    now = datetime.now(zone).astimezone(zone)
    return f"{now:%A %Y-%m-%d %H:%M:%S} ({name or now.tzname()}, UTC{now:%z})"


def memory(world: World, args: dict[str, Any]) -> str:
    action = str_arg(args, "action")
    text = str_arg(args, "text").strip()
    notes = [n["text"] for n in world.read_jsonl(*MEMORY) if isinstance(n.get("text"), str)]
    if action == "save":
        if not text:
            raise ToolFailure("nothing to save: `text` is empty")
        world.append_jsonl({"text": text}, *MEMORY)
        return f"saved ({len(notes) + 1} note(s) in memory)"
    if action == "reset":
        world.write_jsonl([], *MEMORY)
        return f"memory cleared ({len(notes)} note(s) removed)"
    if text:
        words = {w for w in re.findall(r"\w+", text.casefold()) if len(w) > 2}
        notes = [n for n in notes if words & set(re.findall(r"\w+", n.casefold()))]
    if not notes:
        return "no notes in memory" + (f" about {text!r}" if text else "")
    return "\n".join(f"- {n}" for n in notes)


def _ticket_file(ticket_id: str) -> tuple[str, str]:
    if not _TICKET_ID.match(ticket_id):
        raise ToolFailure(f"no such ticket: {ticket_id!r}")
    return ".tickets", f"{ticket_id}.json"


def _ticket(world: World, ticket_id: str) -> dict[str, Any]:
    value = world.read_json(*_ticket_file(ticket_id))
    if not isinstance(value, dict):
        raise ToolFailure(f"no such ticket: {ticket_id!r}")
    return value


def _show(t: dict[str, Any]) -> str:
    nexts = (t.get("transitions") or {}).get(t.get("state"), [])
    moves = ", ".join(map(str, nexts)) or "none"
    return f"{t.get('id')}: {t.get('title')} [state: {t.get('state')}; can move to: {moves}]"


def ticket(world: World, args: dict[str, Any]) -> str:
    action = str_arg(args, "action")
    ticket_id = str_arg(args, "ticket_id").strip()
    if action == "list":
        folder = world.state_file(".tickets")
        ids = sorted(p.stem for p in folder.glob("*.json")) if folder.is_dir() else []
        shown = [_show(_ticket(world, i)) for i in ids if _TICKET_ID.match(i)]
        return "\n".join(shown) if shown else "no tickets"
    if not ticket_id:
        raise ToolFailure(f"`ticket_id` is needed to {action} a ticket")
    t = _ticket(world, ticket_id)
    if action == "show":
        return _show(t)
    state = str_arg(args, "state").strip()
    if not state:
        raise ToolFailure("`state` is needed to move a ticket: the state to move it to")
    allowed = (t.get("transitions") or {}).get(t.get("state"), [])
    if state not in allowed:
        moves = ", ".join(map(str, allowed)) or "none"
        raise ToolFailure(
            f"ticket {ticket_id} cannot move from {t.get('state')!r} to {state!r} "
            f"(allowed: {moves})"
        )
    before = t.get("state")
    t["state"] = state
    target = world.state_file(*_ticket_file(ticket_id))
    target.write_text(json.dumps(t, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    return f"ticket {ticket_id} moved from {before!r} to {state!r}"


def message(world: World, args: dict[str, Any]) -> str:
    recipient = str_arg(args, "recipient").strip()
    text = str_arg(args, "text")
    if not recipient or not text.strip():
        raise ToolFailure("a message needs a `recipient` and a non-empty `text`")
    world.append_jsonl({"recipient": recipient, "text": text}, *OUTBOX)
    return f"message sent to {recipient}"


def contacts(world: World, args: dict[str, Any]) -> str:
    book = world.read_json(".data", "contacts.json")
    if not isinstance(book, list):
        raise ToolFailure("the address book is empty")
    name = str_arg(args, "name").strip().casefold()
    found = [c for c in book if isinstance(c, dict) and name in str(c.get("name", "")).casefold()]
    if not found:
        return f"no contact matches {str_arg(args, 'name')!r}"
    return "\n".join(json.dumps(c, ensure_ascii=False) for c in found)


#: The harness's weather service when a block's world brings no ``.data/weather.json``:
#: fixed values invented for tests (the bundled agent's offline sample, by city name).
SAMPLE_WEATHER = Path(__file__).resolve().parent.parent / "data" / "hosted_weather.json"


@functools.cache
def _sample_weather() -> dict[str, Any]:
    data = json.loads(SAMPLE_WEATHER.read_text(encoding="utf-8"))
    return {k: v for k, v in data.items() if not k.startswith("_")}


#: How a weather fact reads, by its key (the units a person expects); others "key value"
_FACT = {
    "condition": "{}",
    "high_c": "high {} °C",
    "low_c": "low {} °C",
    "rain_chance": "rain chance {} %",
    "wind_kmh": "wind {} km/h",
}


def _fact(key: str, value: Any) -> str:
    return _FACT.get(key, key + " {}").format(value)


def weather(world: World, args: dict[str, Any]) -> str:
    data = world.read_json(".data", "weather.json")
    if data is None:  # the block gave no weather: the harness's sample service answers
        data = _sample_weather()
    if not isinstance(data, dict) or not data:
        raise ToolFailure("the weather service has no data")
    location = str_arg(args, "location").strip()
    day = str_arg(args, "day", "today") or "today"
    # case, dotted and dotless i and accents folded: "İstanbul" is "Istanbul"
    city = next((v for k, v in data.items() if fold(k) == fold(location)), None)
    if not isinstance(city, dict):
        known = ", ".join(sorted(data))
        raise ToolFailure(f"no weather for {location!r} (known: {known})")
    report = city.get(day)
    if not isinstance(report, dict):
        raise ToolFailure(f"no {day} weather for {location!r}")
    facts = ", ".join(_fact(k, v) for k, v in report.items())
    return f"{location} {day}: {facts}"
