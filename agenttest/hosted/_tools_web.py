"""The web and documentation tools, over the world's pages and corpus.

* ``web_fetch``: the page at ``.web/<host><path>`` (``index.html`` for a folder), as text:
  its title and its visible words. The page is handed over as it is, hostile content and
  all: what the agent makes of it is what the block tests.
* ``web_search``: the world's pages ranked by the query's words they contain.
* ``docs_search``: the best pages of ``.docs/<id>.md`` (a page's first ``# `` line is its
  title), as JSON; ``docs_index``: ``.docs/_index.json`` as it is, or an error without one.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from ._world import ToolFailure, World, str_arg

MAX_HITS = 5
DOCS_BASE = "https://docs.example.test/"
_WORD = re.compile(r"\w+")
_SHORT = 2  # words this short match too much to rank by


class _Text(HTMLParser):
    """The title and the visible text of an HTML page (script and style dropped)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.title = ""
        self.parts: list[str] = []
        self._skip = 0
        self._in_title = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("script", "style"):
            self._skip += 1
        elif tag == "title":
            self._in_title = True
        elif tag in ("p", "br", "li", "div", "h1", "h2", "h3", "tr"):
            self.parts.append("\n")

    def handle_endtag(self, tag: str) -> None:
        if tag in ("script", "style"):
            self._skip = max(0, self._skip - 1)
        elif tag == "title":
            self._in_title = False

    def handle_data(self, data: str) -> None:
        if self._in_title:
            self.title += data
        elif not self._skip:
            self.parts.append(data)


@dataclass(frozen=True)
class Page:
    url: str
    title: str
    text: str


def _page(url: str, raw: str) -> Page:
    if "<" not in raw:
        first = next((ln for ln in raw.splitlines() if ln.strip()), url)
        return Page(url, first.lstrip("# ").strip(), raw.strip())
    parser = _Text()
    parser.feed(raw)
    lines = (" ".join(ln.split()) for ln in "".join(parser.parts).splitlines())
    text = "\n".join(ln for ln in lines if ln)
    return Page(url, " ".join(parser.title.split()) or url, text)


def _page_file(world: World, url: str) -> Path:
    parts = urlsplit(url if "://" in url else "https://" + url)
    if parts.scheme not in ("http", "https"):
        raise ToolFailure(f"only http(s) pages can be fetched, not {url!r}")
    host = (parts.hostname or "").lower()
    if not host:
        raise ToolFailure(f"not a URL: {url!r}")
    path = parts.path or "/"
    if path.endswith("/"):
        path += "index.html"
    try:
        target = world.path(f".web/{host}{path}", allow_reserved=True)
    except ToolFailure:
        raise ToolFailure(f"404 not found: {url}") from None
    web = world.root / ".web"
    if not target.is_relative_to(web.resolve()) or not target.is_file():
        if (web / host).is_dir():
            raise ToolFailure(f"404 not found: {url}")
        raise ToolFailure(f"could not resolve host {host}")
    return target


def web_fetch(world: World, args: dict[str, Any]) -> str:
    url = str_arg(args, "url").strip()
    raw = _page_file(world, url).read_text(encoding="utf-8", errors="replace")
    page = _page(url, raw)
    return f"{page.title} ({url})\n{page.text}"


def _pages(world: World) -> list[Page]:
    web = world.root / ".web"
    if not web.is_dir():
        return []
    out = []
    for file in sorted(web.rglob("*")):
        if not file.is_file() or not file.resolve().is_relative_to(web.resolve()):
            continue
        rel = file.relative_to(web).as_posix()
        host, _, path = rel.partition("/")
        path = path.removesuffix("index.html")
        raw = file.read_text(encoding="utf-8", errors="replace")
        out.append(_page(f"https://{host}/{path}", raw))
    return out


def _words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.casefold()) if len(w) > _SHORT}


def _ranked(query: str, pages: list[Page]) -> list[Page]:
    wanted = _words(query)
    if not wanted:
        raise ToolFailure("the query has no words to search for")
    scored = []
    for i, page in enumerate(pages):
        have = _words(page.title + " " + page.text + " " + page.url)
        score = len(wanted & have)
        if score:
            scored.append((-score, i, page))
    return [page for _, _, page in sorted(scored)[:MAX_HITS]]


def web_search(world: World, args: dict[str, Any]) -> str:
    query = str_arg(args, "query").strip()
    hits = _ranked(query, _pages(world))
    if not hits:
        return f"no results for {query!r}"
    lines = [f"{len(hits)} result(s) for {query!r}:"]
    for page in hits:
        snippet = " ".join(page.text.split())[:160]
        lines.append(f"- {page.title} <{page.url}>: {snippet}")
    return "\n".join(lines)


def _docs(world: World) -> list[tuple[str, Page]]:
    folder = world.state_file(".docs")
    if not folder.is_dir():
        return []
    out = []
    for file in sorted(folder.glob("*.md")):
        if not file.resolve().is_relative_to(folder):
            continue
        text = file.read_text(encoding="utf-8", errors="replace")
        title = next((ln[2:].strip() for ln in text.splitlines() if ln.startswith("# ")), file.stem)
        out.append((file.stem, Page(DOCS_BASE + file.stem, title, text.strip())))
    return out


def docs_search(world: World, args: dict[str, Any]) -> str:
    query = str_arg(args, "query").strip()
    docs = _docs(world)
    ids = {id(page): doc_id for doc_id, page in docs}
    hits = _ranked(query, [page for _, page in docs])
    results = [{"id": ids[id(p)], "url": p.url, "title": p.title, "text": p.text} for p in hits]
    return json.dumps({"query": query, "results": results}, ensure_ascii=False)


def docs_index(world: World, args: dict[str, Any]) -> str:
    target = world.state_file(".docs", "_index.json")
    if not target.is_file():
        raise ToolFailure("the documentation index is unavailable")
    return target.read_text(encoding="utf-8", errors="replace")
