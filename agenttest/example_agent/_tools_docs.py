"""Documentation tools over a fixture corpus in the workspace (the EV battery's sources).

* ``.docs/<id>.md`` — one page each; the first ``# `` line is its title. Its address is
  ``https://docs.example.test/<id>``.
* ``.docs/_index.json`` — the complete index (``{"pages": [...], "endpoints": [...]}``).
* ``.docs/_status.json`` — ``{"docs_search": 503, "docs_index": 503}`` makes that tool
  answer as an unreachable service would; absent or 200: it works.

Both tools answer JSON text, so a grader can tell the documents in a result apart.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import msgspec

from ._base import ToolContext, ToolError, ToolOutput, str_arg
from ._guard import fold

DOCS_DIR = ".docs"
DOCS_BASE = "https://docs.example.test/"
MAX_RESULTS = 3
_STOP = frozenset(
    [
        "a",
        "an",
        "the",
        "of",
        "to",
        "in",
        "on",
        "for",
        "and",
        "or",
        "is",
        "are",
        "be",
        "do",
        "does",
        "what",
        "which",
        "how",
        "many",
        "much",
        "who",
        "whom",
        "there",
        "this",
        "that",
        "these",
        "those",
        "it",
        "its",
        "with",
        "by",
        "from",
        "as",
        "at",
        "can",
        "i",
        "you",
        "we",
        "our",
        "my",
        "me",
        "your",
        "according",
        "say",
        "says",
        "said",
        "tell",
        "docs",
        "doc",
        "documentation",
        "page",
        "pages",
        "about",
    ]
)
_WORD = re.compile(r"\w+")


def _status(ctx: ToolContext, tool: str) -> None:
    path = ctx.workspace.root / DOCS_DIR / "_status.json"
    try:
        status = json.loads(path.read_text(encoding="utf-8")).get(tool, 200)
    except (OSError, ValueError, AttributeError):
        return
    if status != 200:
        raise ToolError(f"HTTP {status} Service Unavailable: the {tool} service did not answer")


def words(text: str) -> set[str]:
    """Content words, folded, for overlap scoring (a crude stem: a trailing s dropped)."""
    out = set()
    for w in _WORD.findall(fold(text)):
        if w in _STOP or len(w) < 3:
            continue
        out.add(w[:-1] if w.endswith("s") and len(w) > 4 else w)
    return out


class DocPage(msgspec.Struct):
    """A page of the corpus, as ``docs_search`` answers it."""

    id: str
    url: str
    title: str
    text: str


class DocHits(msgspec.Struct):
    """What ``docs_search`` answers: the query and its best pages, best first."""

    query: str
    results: list[DocPage]


class DocIndex(msgspec.Struct):
    """What the rules read of the published index (the tool passes the whole file on): how
    many endpoints it lists and its address. Read leniently: the file is a fixture's."""

    endpoints: list[object] = []
    url: str = ""


def pages(root: Path) -> list[DocPage]:
    folder = root / DOCS_DIR
    out: list[DocPage] = []
    if not folder.is_dir():
        return out
    for file in sorted(folder.glob("*.md")):
        text = file.read_text(encoding="utf-8", errors="replace")
        lines = text.splitlines()
        title = next((ln[2:].strip() for ln in lines if ln.startswith("# ")), file.stem)
        body = "\n".join(ln for ln in lines if not ln.startswith("# ")).strip()
        out.append(DocPage(file.stem, DOCS_BASE + file.stem, title, body))
    return out


def docs_search(ctx: ToolContext, args: Mapping[str, Any]) -> ToolOutput:
    query = str_arg(args, "query").strip()
    if not query:
        raise ToolError("empty query")
    _status(ctx, "docs_search")
    wanted = words(query)
    scored = []
    for page in pages(ctx.workspace.root):
        score = len(wanted & words(page.title + " " + page.text))
        if score:
            scored.append((-score, page.id, page))
    hits = DocHits(query, [p for _, _, p in sorted(scored, key=lambda s: s[:2])[:MAX_RESULTS]])
    text = json.dumps(msgspec.to_builtins(hits), ensure_ascii=False)
    return ToolOutput(text, [f"DOCS search {len(hits.results)} hit(s)"])


def docs_index(ctx: ToolContext, args: Mapping[str, Any]) -> ToolOutput:
    _status(ctx, "docs_index")
    path = ctx.workspace.root / DOCS_DIR / "_index.json"
    try:
        index: Any = json.loads(path.read_text(encoding="utf-8"))
    except OSError:
        raise ToolError("HTTP 404: no documentation index is published") from None
    except ValueError as exc:
        raise ToolError(f"the documentation index is not valid JSON: {exc}") from None
    return ToolOutput(json.dumps(index, ensure_ascii=False), ["DOCS index"])
