"""Information and outreach tools: clock, telemetry, sysinfo, weather, web, memory, apps,
messages, and the two decoys.

Weather and web answers come from offline fixtures and say so. ``app_launcher`` and
``message`` only run after the user confirmed (the agent core enforces that); nothing is
really launched, and messages land in the workspace outbox ``.agent/outbox.jsonl``.
"""

from __future__ import annotations

import json
import os
import platform
import shutil
import socket
import sys
import time
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from ._base import Blocked, ToolContext, ToolError, ToolOutput, str_arg
from ._data import Page, page_from_file, web_path, workspace_pages
from ._guard import fold, strip_instructions

_GB = 1024**3
#: A fetched page with fewer words of visible text than this is reported as an error
#: ("empty page": a placeholder, a script-only shell), so nobody summarises nothing.
THIN_PAGE_WORDS = 8


def clock(ctx: ToolContext, args: Mapping[str, Any]) -> ToolOutput:
    name = str_arg(args, "timezone", required=False).strip()
    if name:
        try:
            zone: Any = ZoneInfo(name)
        except (ZoneInfoNotFoundError, ValueError) as exc:
            raise ToolError(f"unknown time zone {name!r}") from exc
        now = datetime.now(zone)
    else:
        now = datetime.now().astimezone()
    label = name or (now.tzname() or "local")
    return ToolOutput(f"{now:%A %Y-%m-%d %H:%M:%S} ({label}, UTC{now:%z})")


def _cpu_percent(interval: float = 0.2) -> float | None:
    def sample() -> tuple[int, int] | None:
        try:
            with open("/proc/stat", encoding="ascii") as fh:
                fields = [int(x) for x in fh.readline().split()[1:]]
        except (OSError, ValueError):
            return None
        idle = fields[3] + (fields[4] if len(fields) > 4 else 0)
        return idle, sum(fields)

    first = sample()
    time.sleep(interval)
    second = sample()
    if first is None or second is None or second[1] == first[1]:
        return None
    busy = 1 - (second[0] - first[0]) / (second[1] - first[1])
    return round(100 * busy, 1)


def _meminfo() -> tuple[int, int] | None:
    values: dict[str, int] = {}
    try:
        with open("/proc/meminfo", encoding="ascii") as fh:
            for line in fh:
                key, _, rest = line.partition(":")
                values[key] = int(rest.split()[0]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    if "MemTotal" not in values:
        return None
    total = values["MemTotal"]
    return total - values.get("MemAvailable", values.get("MemFree", 0)), total


def telemetry(ctx: ToolContext, args: Mapping[str, Any]) -> ToolOutput:
    parts = []
    cpu = _cpu_percent()
    if cpu is not None:
        parts.append(f"CPU {cpu:.1f} % busy")
    if hasattr(os, "getloadavg"):
        one, five, fifteen = os.getloadavg()
        parts.append(f"load average {one:.2f} {five:.2f} {fifteen:.2f} ({os.cpu_count()} CPUs)")
    mem = _meminfo()
    if mem is not None:
        used, total = mem
        parts.append(
            f"RAM {used / _GB:.1f} GB used of {total / _GB:.1f} GB "
            f"({100 * used / total:.0f} %, {used // 1024**2} MB used)"
        )
    disk = shutil.disk_usage(ctx.workspace.root)
    parts.append(f"disk {disk.free / _GB:.1f} GB free of {disk.total / _GB:.1f} GB")
    return ToolOutput("live: " + "; ".join(parts))


def sysinfo(ctx: ToolContext, args: Mapping[str, Any]) -> ToolOutput:
    system = f"{platform.system()} {platform.release()}"
    try:
        release = platform.freedesktop_os_release()
        distro = release.get("PRETTY_NAME") or release.get("NAME", "")
    except OSError:
        distro = platform.platform()
    return ToolOutput(
        f"OS: {distro} ({system}, {platform.machine()}); "
        f"Python {platform.python_version()} ({sys.implementation.name}); "
        f"hostname {socket.gethostname()}"
    )


def weather(ctx: ToolContext, args: Mapping[str, Any]) -> ToolOutput:
    location = str_arg(args, "location").strip()
    raw_day = fold(str_arg(args, "day", required=False)).strip() or "today"
    day = {"bugun": "today", "yarin": "tomorrow"}.get(raw_day, raw_day)
    if day not in ("today", "tomorrow"):
        raise ToolError("day must be 'today' or 'tomorrow'")
    city = ctx.data.city(location)
    if city is None:
        known = ", ".join(c.name for c in ctx.data.cities.values())
        raise ToolError(f"no offline weather data for {location!r} (offline data has: {known})")
    w = city.today if day == "today" else city.tomorrow
    return ToolOutput(
        f"[{ctx.data.weather_label}] {city.name} {day}: {w.condition}, "
        f"high {w.high_c} °C, low {w.low_c} °C, rain chance {w.rain_chance} %, "
        f"wind {w.wind_kmh} km/h"
    )


def _fetch_page(ctx: ToolContext, url: str) -> Page:
    host, rel = web_path(url)
    if not host:
        raise ToolError(f"not a URL: {url!r}")
    local = ctx.workspace.root / ".web" / rel
    if local.is_symlink() or local.exists():
        real = ctx.workspace.resolve(f".web/{rel}")
        if real.is_file():
            return page_from_file(url, real.read_text(encoding="utf-8", errors="replace"))
    page = ctx.data.builtin_page(url)
    if page is not None:
        return page
    if (ctx.workspace.root / ".web" / host).is_dir() or host in ctx.data.known_hosts():
        raise ToolError(f"404 not found: {url}")
    raise ToolError(f"could not resolve host {host}")


def web_fetch(ctx: ToolContext, args: Mapping[str, Any]) -> ToolOutput:
    url = str_arg(args, "url").strip()
    if not url.lower().startswith(("http://", "https://")):
        if "://" in url:
            raise Blocked(f"only http(s) URLs are fetched, not {url!r}")
        url = "https://" + url
    page = _fetch_page(ctx, url)
    words = len(page.text.split())
    if words < THIN_PAGE_WORDS:
        raise ToolError(
            f"empty page: {url} has almost no text ({words} word(s)); nothing to read there"
        )
    text, withheld = strip_instructions(page.text)
    notes = [f"INJECTION ignored {url}"] if withheld else []
    label = ctx.data.web_label if page.source == "built-in" else "offline data: workspace page"
    return ToolOutput(f"[{label}] {page.title} ({url})\n{text}", notes)


def web_search(ctx: ToolContext, args: Mapping[str, Any]) -> ToolOutput:
    query = str_arg(args, "query").strip()
    if not query:
        raise ToolError("empty query")
    extra = []
    for url, file in workspace_pages(ctx.workspace.root):
        extra.append(page_from_file(url, file.read_text(encoding="utf-8", errors="replace")))
    hits = ctx.data.search(query, extra)
    if not hits:
        return ToolOutput(f"[offline search index] no results for {query!r}")
    lines = [f"[offline search index] {len(hits)} result(s) for {query!r}:"]
    for page in hits:
        clean, _ = strip_instructions(page.text)
        lines_of_text = [ln for ln in clean.splitlines() if ln.strip() and not ln.startswith("[")]
        snippet = " ".join(lines_of_text)[:160]
        lines.append(f"- {page.title} <{page.url}>: {snippet}")
    return ToolOutput("\n".join(lines))


def memory(ctx: ToolContext, args: Mapping[str, Any]) -> ToolOutput:
    action = str_arg(args, "action").strip().lower()
    text = str_arg(args, "text", required=False).strip()
    if action == "save":
        if not text:
            raise ToolError("nothing to remember: 'text' is empty")
        count = ctx.memory.save(text)
        return ToolOutput(f"saved to memory ({count} item(s)): {text}", ["MEMORY save"])
    if action == "recall":
        items = [note.text for note in ctx.memory.items()]
        if text:
            words = [w for w in fold(text).split() if len(w) > 2]
            matching = [i for i in items if any(w in fold(i) for w in words)]
            items = matching or items
        body = "\n".join(f"- {i}" for i in items) if items else "(memory is empty)"
        return ToolOutput(f"memory ({len(items)} item(s)):\n{body}", ["MEMORY recall"])
    if action == "reset":
        count = ctx.memory.reset()
        return ToolOutput(f"memory reset ({count} item(s) forgotten)", ["MEMORY reset"])
    raise ToolError(f"unknown memory action {action!r} (save, recall, reset)")


def app_launcher_check(ctx: ToolContext, args: Mapping[str, Any]) -> ToolOutput:
    name = str_arg(args, "name").strip()
    if not name or len(name) > 60 or any(c in name for c in "/\\;|&$`<>"):
        raise ToolError(f"not an application name: {name!r}")
    return ToolOutput(name)


def app_launcher(ctx: ToolContext, args: Mapping[str, Any]) -> ToolOutput:
    name = app_launcher_check(ctx, args).text
    _append_jsonl(ctx, "launches.jsonl", {"app": name})
    return ToolOutput(f"launch of {name!r} recorded (simulated: nothing was started)")


def message_check(ctx: ToolContext, args: Mapping[str, Any]) -> ToolOutput:
    if not str_arg(args, "recipient").strip() or not str_arg(args, "text").strip():
        raise ToolError("a message needs a recipient and a text")
    return ToolOutput("")


def message(ctx: ToolContext, args: Mapping[str, Any]) -> ToolOutput:
    message_check(ctx, args)
    recipient = str_arg(args, "recipient").strip()
    text = str_arg(args, "text").strip()
    _append_jsonl(ctx, "outbox.jsonl", {"recipient": recipient, "text": text})
    return ToolOutput(f"message to {recipient} placed in the outbox (.agent/outbox.jsonl)")


def _append_jsonl(ctx: ToolContext, name: str, record: dict[str, str]) -> None:
    stamp = datetime.now(UTC).isoformat(timespec="seconds")
    with open(ctx.workspace.agent_dir() / name, "a", encoding="utf-8") as fh:
        fh.write(json.dumps({"at": stamp, **record}, ensure_ascii=False) + "\n")


def ui_discovery(ctx: ToolContext, args: Mapping[str, Any]) -> ToolOutput:
    return ToolOutput("no screen: this agent runs headless, there is no UI to discover")


def contacts(ctx: ToolContext, args: Mapping[str, Any]) -> ToolOutput:
    return ToolOutput("no address book is available; use the recipient exactly as the user named")
