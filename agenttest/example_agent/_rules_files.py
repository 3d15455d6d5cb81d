"""File intents of the rules brain: which file operation, on which path, with what content."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from ._guard import fold
from ._rules_parse import as_typed, folder_name, paths, quoted, unquoted


@dataclass
class Intent:
    """What one step of a message asks for, before anything runs."""

    category: str  # the ROUTE category
    kind: str  # tool, greeting, math_local, refuse, clarify, chat, fact_set, fact_get
    tool: str = ""
    calls: list[dict[str, Any]] = field(default_factory=list)
    detail: str = ""  # refusal reason, clarifying question, expression, or reply

    @property
    def acts(self) -> bool:
        return self.kind in ("tool", "math_local")


@dataclass
class Context:
    """What the rules brain remembers of the conversation for pronouns like "it"."""

    last_path: str | None = None
    path_this_turn: bool = False
    last_value: str | None = None


_FILE_WORD = r"\b(file|files|folder|directory|document|dosya\w*|klasor\w*|dizin\w*|belge\w*)\b"
_DELETE = r"\b(delete|remove|erase|unlink|trash)\b|\bsil(in|er|ebilir\w*)?\b|\bkaldir\w*"
_MOVE = r"\b(move|rename|mv)\b|\btasi\w*|\byeniden adlandir\w*|\badini\b.*\b(degistir|yap)"
_APPEND = r"\b(append|add)\b|\bekle\w*|\bsonuna\b"
_REPLACE = r"\b(replace|substitute)\b|\bchange\b.+\bto\b|\byerine\b|\bdegistir\w*"
_WRITE = (
    r"\b(write|create|save|make|put|store|touch|overwrite)\b|\byaz\w*|\bolustur\w*|"
    r"\bkaydet\w*"
)
_EMPTY = r"\b(empty|clear|truncate|blank)\b|\bbosalt\w*|\btemizle\w*|\bbos\b"
_LIST = (
    r"\b(list|ls)\b|\bwhat files\b|\bwhich files\b|\bfiles (are )?(in|inside|there)\b|"
    r"\blistele\w*|\bdosyalar\w*|\bneler var\b|\bhangi dosya"
)
_READ = (
    r"\b(read|show|display|cat|print|open|view|contents?|what'?s in|what is in|look at)\b|"
    r"\boku\w*|\bgoster\w*|\bicerig\w*|\bicinde ne|\bac\b|\bacar\s+misin"
)
_PRONOUN = r"\b(it|that|this|onu|bunu|sunu|ayni)\b"
_CONTENT_MARKERS = (
    r"(?:with (?:the )?(?:content|contents|text)|containing|that says|saying|which says|"
    r"icerigi|icerik|metni|yazisi)\s*:?\s*(.+)$"
)


def _content(text: str, path: str, ctx: Context) -> str | None:
    """What to write: quotes first, then text after a content marker, then "the result"."""
    chunks = [q for q in quoted(text) if q.strip() != path]
    if chunks:
        return chunks[0]
    plain = unquoted(text)
    folded = fold(plain)
    m = re.search(_CONTENT_MARKERS, folded)
    if m is None and ":" in plain:
        return plain.split(":", 1)[1].strip()
    if m is not None:
        return plain[m.start(1) :].strip().rstrip(".")
    if ctx.last_value is not None and re.search(r"\b(result|answer|sonuc\w*|cevab\w*)\b", folded):
        return ctx.last_value
    m = re.search(r"\bwrite\s+(.+?)\s+(?:to|into|in)\s+(?:the\s+)?(?:file\s+)?\S*$", plain, re.I)
    if m:
        return m.group(1).strip()
    return None


def _target(text: str, folded: str, ctx: Context) -> str | None:
    found = paths(text)
    if found:
        return found[0]
    pronoun = re.search(_PRONOUN, fold(unquoted(text)))
    definite = re.search(r"\b(the file|dosyayi|dosyasini|dosyaya)\b", folded)
    if ctx.last_path and (pronoun or (definite and ctx.path_this_turn)):
        return ctx.last_path
    return None


_NOT_A_FOLDER = {"files", "file", "folder", "directory", "contents", "everything", "all", "the",
                 "workspace", "current", "here", "me", "them", "my", "dosyalari", "klasor"}  # fmt: skip


def _listed(text: str, folded: str) -> str | None:
    """The folder after "list"/"files in": "list docs", "ls src", "files in docs"."""
    m = re.search(r"\b(?:list|ls)\s+(?:the\s+)?(?:files\s+)?(?:in\s+|of\s+|inside\s+)?(?:the\s+)?"
                  r"([\w.-]+)", folded) or re.search(
        r"\bfiles\s+(?:in|inside|under)\s+(?:the\s+)?([\w.-]+)", folded
    )  # fmt: skip
    name = m.group(1) if m else None
    return as_typed(text, name) if name and name not in _NOT_A_FOLDER else None


def _ask(question: str) -> Intent:
    return Intent("clarify", "clarify", detail=question)


def file_intent(text: str, tr: bool, ctx: Context) -> Intent | None:
    folded = fold(unquoted(text))
    mentions_file = re.search(_FILE_WORD, folded) is not None
    target = _target(text, folded, ctx)

    def has(pattern: str) -> bool:
        return re.search(pattern, folded) is not None

    if has(_DELETE) and (target or mentions_file):
        if not target:
            return _ask("Hangi dosyayı sileyim?" if tr else "Which file should I delete?")
        return Intent("file", "tool", "file_delete", [{"path": p} for p in paths(text) or [target]])
    if has(_MOVE) and (target or mentions_file):
        found = paths(text)
        dest = found[1] if len(found) > 1 else None
        if dest is None:
            m = re.search(r"\b(?:to|into|as)\s+(?:the\s+)?(?:folder\s+|directory\s+)?([\w./-]+)",
                          unquoted(text), re.I)  # fmt: skip
            dest = m.group(1).rstrip(".") if m else folder_name(text)
        if not target or not dest or dest == target:
            q = "Neyi nereye taşıyayım?" if tr else "Which file should I move, and to where?"
            return _ask(q)
        return Intent("file", "tool", "file_move", [{"source": target, "destination": dest}])
    if has(_REPLACE) and target and len(quoted(text)) >= 2:
        old, new = [q for q in quoted(text) if q != target][:2]
        return Intent("file", "tool", "file_patch", [{"path": target, "find": old, "replace": new}])
    if has(_APPEND) and target and not has(r"\b(create|olustur\w*)\b"):
        addition = _content(text, target, ctx)
        if addition is None:
            m = re.search(r"\b(?:append|add)\s+(.+?)\s+(?:to|at the end of)\b", unquoted(text))
            addition = m.group(1) if m else None
        if not addition:
            return _ask("Ne ekleyeyim?" if tr else "What should I add to the file?")
        return Intent("file", "tool", "file_patch", [{"path": target, "append": addition}])
    if has(_EMPTY) and target and not has(r"\b(create|olustur\w*)\b"):
        return Intent("file", "tool", "file_write", [{"path": target, "content": ""}])
    if has(_WRITE) and (target or mentions_file):
        if not target:
            q = "Dosyanın adı ne olsun?" if tr else "What should the file be called?"
            return _ask(q)
        content = _content(text, target, ctx)
        if content is None:
            if not has(r"\b(empty|blank|bos)\b") and not has(r"\b(create|touch|olustur\w*)\b"):
                return _ask("Dosyaya ne yazayım?" if tr else "What should I write into it?")
            content = ""
        return Intent("file", "tool", "file_write", [{"path": target, "content": content}])
    if has(_LIST) and not (target and re.search(r"\.\w+$", target)):
        where = target or folder_name(text) or _listed(text, folded) or "."
        return Intent("file", "tool", "file_list", [{"path": where}])
    if has(_READ) and (target or mentions_file):
        if not target:
            return _ask("Hangi dosyayı okuyayım?" if tr else "Which file should I read?")
        return Intent("file", "tool", "file_read", [{"path": p} for p in paths(text) or [target]])
    if target and mentions_file and re.search(r"\?\s*$", text):
        return Intent("file", "tool", "file_read", [{"path": target}])
    return None
