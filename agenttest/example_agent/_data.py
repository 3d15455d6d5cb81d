"""Offline fixture data: weather and web pages shipped in ``data/``, plus workspace pages.

Every result built from this data says it is offline data. Web pages placed by a test
runner in the workspace under ``.web/<host><path>`` take precedence over the built-in ones.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import TypeVar
from urllib.parse import urlsplit

import msgspec

from ._guard import fold

_STOP = {
    "the", "a", "an", "of", "for", "to", "in", "on", "and", "or", "is", "what", "about",
    "search", "web", "internet", "online", "find", "look", "up", "me", "please", "bir", "ve",
    "hakkinda", "ara", "arastir", "bul", "nedir", "ne", "icin", "ile", "bilgi",
}  # fmt: skip


@dataclass(frozen=True)
class Page:
    url: str
    title: str
    text: str
    source: str  # "workspace" or "built-in"
    keywords: tuple[str, ...] = ()


class Forecast(msgspec.Struct):
    """One day's offline weather for a city."""

    condition: str
    high_c: int
    low_c: int
    rain_chance: int  # %
    wind_kmh: int


class City(msgspec.Struct):
    """A city of ``weather.json``: the names it is asked by, folded when compared."""

    name: str
    today: Forecast
    tomorrow: Forecast
    aliases: list[str] = []


class WeatherFile(msgspec.Struct):
    """``data/weather.json``: cities by key, and the label every result carries."""

    cities: dict[str, City]
    label: str = "offline data"


class WebPageEntry(msgspec.Struct):
    """A built-in page of ``web.json``; its keywords count in a search beside its text."""

    url: str
    title: str
    text: str
    keywords: list[str] = []


class WebFile(msgspec.Struct):
    """``data/web.json``: the built-in pages, and the label every result carries."""

    pages: list[WebPageEntry]
    label: str = "offline data"


S = TypeVar("S", bound=msgspec.Struct)


@lru_cache(maxsize=2)
def _package_json(name: str, cls: type[S]) -> S:
    raw = resources.files("agenttest.example_agent").joinpath("data").joinpath(name).read_bytes()
    return msgspec.json.decode(raw, type=cls)


def html_to_text(markup: str) -> tuple[str, str]:
    """``(title, text)`` of an HTML page; comments are kept as text so they are inspected."""
    title_match = re.search(r"<title[^>]*>(.*?)</title>", markup, re.I | re.S)
    h1_match = re.search(r"<h1[^>]*>(.*?)</h1>", markup, re.I | re.S)
    text = re.sub(r"<(script|style)\b.*?</\1\s*>", " ", markup, flags=re.I | re.S)
    text = re.sub(r"<title[^>]*>.*?</title>", " ", text, flags=re.I | re.S)
    text = re.sub(r"<!--(.*?)-->", lambda m: "\n" + m.group(1).strip() + "\n", text, flags=re.S)
    text = re.sub(r"<(br|/p|/div|/h\d|/li|/tr|p|div|li|h\d)\b[^>]*>", "\n", text, flags=re.I)
    text = html.unescape(re.sub(r"<[^>]+>", " ", text))
    lines = [re.sub(r"[ \t]+", " ", line).strip() for line in text.splitlines()]
    body = "\n".join(line for line in lines if line)
    heading = title_match or h1_match
    raw_title = heading.group(1) if heading is not None else ""
    title = html.unescape(re.sub(r"<[^>]+>", "", raw_title)).strip()
    return title, body


def page_from_file(url: str, content: str) -> Page:
    if "<" in content and re.search(r"</?(html|body|p|div|h\d|title|!--)", content, re.I):
        title, text = html_to_text(content)
    else:
        title, text = "", content.strip()
    if not title:
        title = next((ln.strip("# ").strip() for ln in text.splitlines() if ln.strip()), url)
    return Page(url=url, title=title[:120], text=text, source="workspace")


def web_path(url: str) -> tuple[str, str]:
    """``(host, relative file path)`` of a URL inside ``.web/``; ``/`` ends get index.html."""
    parts = urlsplit(url if "://" in url else "https://" + url)
    host = (parts.hostname or "").lower()
    path = parts.path or "/"
    if path.endswith("/"):
        path += "index.html"
    return host, host + path


class OfflineData:
    """The built-in offline weather and web fixtures."""

    def __init__(self, weather: WeatherFile, web: WebFile) -> None:
        self.weather_label = weather.label
        self.web_label = web.label
        self.cities = weather.cities
        self.pages = [
            Page(p.url, p.title, p.text, source="built-in", keywords=tuple(p.keywords))
            for p in web.pages
        ]

    @classmethod
    def load(cls) -> OfflineData:
        return cls(_package_json("weather.json", WeatherFile), _package_json("web.json", WebFile))

    def city_names(self) -> list[tuple[str, str]]:
        """``(folded alias, key)`` pairs, longest alias first (so "new york" beats "york")."""
        pairs = [
            (fold(alias), key)
            for key, city in self.cities.items()
            for alias in [key, *city.aliases]
        ]
        return sorted(set(pairs), key=lambda p: -len(p[0]))

    def city(self, name: str) -> City | None:
        wanted = fold(name).strip()
        for alias, key in self.city_names():
            if alias == wanted:
                return self.cities[key]
        return None

    def builtin_page(self, url: str) -> Page | None:
        host, path = web_path(url)
        for page in self.pages:
            if web_path(page.url) == (host, path):
                return page
        return None

    def known_hosts(self) -> set[str]:
        return {web_path(p.url)[0] for p in self.pages}

    def search(self, query: str, extra: list[Page], limit: int = 3) -> list[Page]:
        words = [w for w in re.findall(r"\w+", fold(query)) if len(w) > 1 and w not in _STOP]
        scored: list[tuple[int, int, Page]] = []
        for order, page in enumerate([*extra, *self.pages]):
            title, text = fold(page.title), fold(page.text)
            keys = " ".join(fold(k) for k in page.keywords)
            score = sum(3 * (w in title) + 2 * (w in keys) + (w in text) for w in words)
            if score:
                scored.append((-score, order, page))
        return [page for _, _, page in sorted(scored, key=lambda s: (s[0], s[1]))[:limit]]


def workspace_pages(root: Path) -> list[tuple[str, Path]]:
    """``(url, file)`` for every page under ``.web/`` of the workspace."""
    base = root / ".web"
    if not base.is_dir():
        return []
    found: list[tuple[str, Path]] = []
    for file in sorted(base.rglob("*")):
        if file.is_file() and file.resolve().is_relative_to(root):
            rel = file.relative_to(base).as_posix()
            url = "https://" + (rel[: -len("index.html")] if rel.endswith("/index.html") else rel)
            found.append((url, file))
    return found
