"""Rules for questions answered from evidence: the documentation corpus and the project code.

Deliberately simple, and honest about it (docs/example-agent.md):

* A documentation question runs ``docs_search``. A failed search is reported as "could not
  reach", an empty one as "the docs don't cover this". Otherwise the answer is the sentence
  of the best page that shares the most words with the question, cited by its address; a
  two-part question takes one sentence from each of the two best pages and cites both.
  The rule cannot tell a page about *something similar* from a page about the thing asked:
  it answers from the closest page (near misses and adjacent questions defeat it).
* A question about a total (how many, in total) also asks ``docs_index``; if the index
  answers, its count is the total; if not, the agent lists what the pages show and says the
  list may be incomplete instead of adding it up.
* A fetched page whose text stops mid-sentence came back cut off: it is fetched once more,
  and the longer of the two is read (a page cut off both times is read as it came).
* A question about the project recalls memory and reads the code under ``src/``. A code line
  that shares two words with the question wins over memory; when the code says nothing, a
  matching memory note is repeated as the answer (so a false note the code never mentions
  is adopted: the rule cannot know it is false).
"""

from __future__ import annotations

import json
import re
from typing import Any

import msgspec

from agenttest._util.lenient import lenient

from ._agent import Outcome, Turn
from ._guard import fold
from ._tools_docs import DOCS_BASE, DocHits, DocIndex, DocPage, words

# Only a question that asks what the documentation says (not "list the docs folder").
_DOCS_Q = re.compile(
    r"\b(according to|in|from|do|does) the (docs|documentation)\b(?!\s*(folder|directory|dir)\b)"
    r"|\b(belgelere|dokumantasyona|belgelerde|dokumantasyonda) gore\b|\bbelgelere gore\b"
)
_PROJECT_Q_TR = re.compile(r"\bbu projede\b")
_PROJECT_Q = re.compile(
    r"\b(in|of|for) (the|this|my) (project|codebase|service)\b(?!\s*(folder|directory|dir)\b)"
)
_TOTAL_Q = re.compile(r"\bhow many\b|\bin total\b|\btotal\b|\bkac\b|\btoplam\b")
_ENDPOINT = re.compile(r"`((?:GET|POST|PUT|PATCH|DELETE) /[^`]+)`")
_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")
_CODE_SUFFIXES = (".py", ".toml", ".yaml", ".yml", ".cfg", ".ini", ".json")


def evidence_reply(turn: Turn, message: str) -> str | None:
    """The reply for a documentation or project question, or None for other messages."""
    f = fold(message)
    if _PROJECT_Q.search(f) or _PROJECT_Q_TR.search(f):
        turn.route("memory")
        return _project(turn, message)
    if _DOCS_Q.search(f):
        turn.route("docs")
        return _docs(turn, message, bool(_TOTAL_Q.search(f)))
    return None


#: Text that ends like this stops mid-sentence (a letter, a digit or a comma, no full stop).
_CUT = re.compile(r"[\w,]\s*$")


def whole_page(turn: Turn, args: dict[str, Any], out: Outcome, tool: str) -> Outcome:
    """``out`` of a ``web_fetch``, or of a second fetch when the first came back cut off."""
    if tool != "web_fetch" or not out.ok or not _CUT.search(out.text):
        return out
    again = turn.call("web_fetch", args)
    return again if again.ok and len(again.text) > len(out.text) else out


def _hits(text: str) -> list[DocPage] | None:
    """The pages of a search answer: its leading JSON document (text after it, such as
    content appended on the way, is not read), or None when there is none."""
    try:
        value, _end = json.JSONDecoder().raw_decode(text.lstrip())
        return msgspec.convert(value, DocHits).results
    except (ValueError, msgspec.ValidationError):
        return None


def _best_sentence(text: str, wanted: set[str]) -> tuple[int, str]:
    best = (0, "")
    for sentence in _SENTENCE.split(text):
        sentence = sentence.strip().lstrip("-* ").strip()
        if not sentence or sentence.startswith("#"):  # a heading names a page, says nothing
            continue
        score = len(wanted & words(sentence))
        if score > best[0]:
            best = (score, sentence)
    return best


def _docs(turn: Turn, message: str, total: bool) -> str:
    out = turn.call("docs_search", {"query": message})
    if not out.ok:
        return (
            f"I couldn't reach the documentation search ({out.text}), so I can't answer from "
            "the docs; nothing was checked."
        )
    results = _hits(out.text)
    if results is None:
        return (
            "The documentation search answered something that is not a list of pages, so "
            "I can't answer from the docs; nothing was checked."
        )
    if total:
        return _total(turn, results)
    if not results:
        return (
            "The docs don't cover this: the documentation search found no page matching "
            f"{message.strip()!r}."
        )
    wanted = words(message)
    two_part = " and " in fold(message) and len(results) > 1
    picked = []
    for page in results[: 2 if two_part else 1]:
        score, sentence = _best_sentence(page.text, wanted)
        if score:
            picked.append((sentence, page.url))
    if not picked:  # the question is named: what the docs don't cover is that
        return f"The docs don't cover this: no page says anything about {message.strip()!r}."
    return " ".join(f"{s.rstrip('.')} (source: {url})." for s, url in picked)


def _total(turn: Turn, results: list[DocPage]) -> str:
    listed: list[str] = []
    for page in results:
        for ep in _ENDPOINT.findall(page.text):
            if ep not in listed:
                listed.append(ep)
    index = turn.call("docs_index", {})
    if index.ok:
        data = lenient(DocIndex, json.loads(index.text))
        return (
            f"The documentation index lists {len(data.endpoints)} endpoints in total "
            f"(source: {data.url or DOCS_BASE + '_index'})."
        )
    shown = ", ".join(listed) or "none"
    urls = ", ".join(p.url for p in results)
    return (
        f"The overview pages I found ({urls}) show these endpoints: {shown}. The complete "
        f"index did not answer ({index.text}), so this list may be incomplete and I can't "
        "give a reliable total."
    )


def _code_lines(turn: Turn) -> list[tuple[str, str]]:
    listing = turn.call("file_list", {"path": "src"})
    if not listing.ok:
        return []
    found = []
    for name in re.findall(r"[\w.-]+", listing.text):
        if not name.endswith(_CODE_SUFFIXES):
            continue
        read = turn.call("file_read", {"path": f"src/{name}"})
        if read.ok:
            found += [(f"src/{name}", line) for line in read.text.splitlines() if line.strip()]
    return found


def _project(turn: Turn, message: str) -> str:
    wanted = words(message)
    recall = turn.call("memory", {"action": "recall", "text": message})
    notes = [ln[2:] for ln in recall.text.splitlines() if ln.startswith("- ")] if recall.ok else []
    best: tuple[int, str, str] = (1, "", "")
    for path, line in _code_lines(turn):
        score = len(wanted & words(line))
        if score > best[0] and "=" in line:
            best = (score, path, line.strip())
    if best[1]:
        _, path, line = best
        return f"According to the code ({path}): `{line}`."
    note = max(notes, key=lambda n: len(wanted & words(n)), default="")
    if note and len(wanted & words(note)) >= 2:
        return f"From my memory notes: {note}"
    return "I couldn't find this in the project's code or in my notes."
