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
    detail: str = ""  # refusal reason, question, expression, reply, or an expansion rule
    cue: str = ""  # the specific signal that decided the route, logged before it

    @property
    def acts(self) -> bool:
        return self.kind in ("tool", "math_local")


@dataclass
class Context:
    """What the rules brain remembers of the conversation for pronouns like "it"."""

    last_path: str | None = None
    path_this_turn: bool = False
    last_value: str | None = None
    last_refusal: str | None = None


_FILE_WORD = r"\b(file|files|folder|directory|document|dosya\w*|klasor\w*|dizin\w*|belge\w*)\b"
_DELETE = r"\b(delete|remove|erase|unlink|trash)\b|\bsil(in|er|ebilir\w*)?\b|\bkaldir\w*"
_MOVE = r"\b(move|rename|mv)\b|\btasi\w*|\byeniden adlandir\w*|\badini\b.*\b(degistir|yap)"
_APPEND = r"\b(append|add)\b|\bekle\w*|\bsonuna\b"
_REPLACE = (
    r"\b(replace|substitute|fix|correct)\b|\bchange\b.+\bto\b|\byerine\b|\bdegistir\w*|"
    r"\bduzelt\w*|->|→|=>"
)
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
    r"\b(read|show|display|cat|print|open|view|contents?|what'?s in|what is in|look at|"
    r"summari[sz]e|summary|analy[sz]e|explain|review|inspect|check)\b|\boku\w*|\bgoster\w*|"
    r"\bicerig\w*|\bicinde ne|\bac\b|\bacar\s+misin|\bozetle\w*|\bincele\w*|\bkontrol\w*"
)
_SAFETY = r"\b(safe|unsafe|dangerous|harmful|risky|malicious|guvenli|tehlikeli|zararli)\w*"
_PRONOUN = r"\b(it|that|this|onu|bunu|sunu|ayni)\b"
_RECENT = r"\b(just|created|wrote|made|last|previous|az once|olusturdugun|yazdigin|son)\b"
_RESULT_REF = (
    r"^(it|that|this|onu|bunu)$|"
    r"^(the |that |this )?(result|output|answer|number|value|sonuc\w*|cikti\w*)$"
)
_CONTENT_MARKERS = (
    r"(?:with (?:the )?(?:content|contents|text)|containing|that says|saying|which says|"
    r"icerigi|icerik|metni|yazisi)\s*:?\s*(.+)$"
)
_NO_VALUE = "\x00no-value"


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
    if re.search(r"\b(result|output|answer|sonuc\w*|cikti\w*|cevab\w*)\b", folded):
        return ctx.last_value if ctx.last_value is not None else _NO_VALUE
    m = re.search(r"\bwrite\s+(.+?)\s+(?:to|into|in)\s+(?:the\s+)?(?:file\s+)?\S*$", plain, re.I)
    if m:
        said = m.group(1).strip()
        if re.match(_RESULT_REF, fold(said)):
            return ctx.last_value if ctx.last_value is not None else _NO_VALUE
        return said
    return None


def _destination(text: str, found: list[str]) -> str | None:
    """The path written to: after "to/into" (then "in/as"), or before a Turkish dative."""
    for prepositions in ("to|into|onto", "in|as|under"):
        for path in found:
            escaped = re.escape(path)
            english = (rf"\b(?:{prepositions})\s+(?:the\s+)?(?:new\s+)?(?:file\s+)?['\"“]?"
                       rf"{escaped}")  # fmt: skip
            if re.search(english, text, re.I):
                return path
    for path in found:
        turkish = rf"{re.escape(path)}['’]?\w*\s+(?:adl[ıi]\s+)?(?:dosyas[ıi]na|dosyaya)"
        if re.search(turkish, text, re.I):
            return path
    return None


def _named_paths(text: str) -> list[str]:
    """Paths in ``text``, without bare extensions used as a kind ("the .part file")."""
    kinds = {f".{m}" for m in re.findall(r"(?<![\w/])\.(\w+)\)?\s+(?:file|files|dosya)", text)}
    return [p for p in paths(text) if p not in kinds]


def _target(text: str, folded: str, ctx: Context) -> str | None:
    found = _named_paths(text)
    if found:
        return found[0]
    pronoun = re.search(_PRONOUN, fold(unquoted(text)))
    definite = re.search(r"\b(the file|that file|dosyayi|dosyasini|dosyaya)\b", folded)
    recent = definite and re.search(_RECENT, folded)
    if ctx.last_path and (pronoun or recent or (definite and ctx.path_this_turn)):
        return ctx.last_path
    return None


def _by_extension(text: str, folded: str) -> Intent | None:
    """ "the .part file in the scratch folder": list the folder, then act on the one match."""
    ext = re.search(r"(?<![\w/])\.([a-z0-9]{1,10})\b(?!\.)", folded)
    where = folder_name(text)
    if ext and where:
        return Intent("file", "tool", "file_list", [{"path": where}], detail=f"ext:.{ext.group(1)}")
    return None


def _ask(question: str) -> Intent:
    return Intent("clarify", "clarify", detail=question)


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


def _move(text: str, folded: str, target: str | None, tr: bool) -> Intent:
    found = paths(text)
    contents = re.search(r"\b(contents of|everything in|all (the )?files in|icindeki\w*)\b", folded)
    source = target
    if contents:
        source = folder_name(text) or (found[0] if found else None)
    dest = found[1] if len(found) > 1 else (found[0] if contents and found else None)
    if dest is None or dest == source:
        m = re.search(r"\b(?:to|into|as)\s+(?:the\s+)?(?:folder\s+|directory\s+)?([\w./-]+)",
                      unquoted(text), re.I)  # fmt: skip
        dest = m.group(1).rstrip(".") if m else None
    if not source or not dest or dest == source:
        return _ask("Neyi nereye taşıyayım?" if tr else "Which files should I move, and to where?")
    if contents:
        return Intent("file", "tool", "file_list", [{"path": source}], detail=f"move-all:{dest}")
    return Intent("file", "tool", "file_move", [{"source": source, "destination": dest}])


def file_intent(text: str, tr: bool, ctx: Context) -> Intent | None:
    folded = fold(unquoted(text))
    mentions_file = re.search(_FILE_WORD, folded) is not None
    target = _target(text, folded, ctx)
    verb_led = re.match(r"\s*(please\s+|lutfen\s+)?(move|delete|remove|rename|erase)\b", folded)
    verb_led = verb_led or re.search(r"\b(tasi|sil|kaldir)\s*[.!]?$", folded)

    def has(pattern: str) -> bool:
        return re.search(pattern, folded) is not None

    cleanup = re.search(r"\b(clean ?up|clear out|empty|tidy)\b.*\b(folder|directory)\b|"
                        r"\bklasor\w*\s+(temizle|bosalt)", folded)  # fmt: skip
    where = folder_name(text)
    if cleanup and where:
        return Intent("file", "tool", "file_list", [{"path": where}], detail="delete-all:")
    if has(_DELETE) and (target or mentions_file or verb_led):
        if not target:
            return _by_extension(text, folded) or _ask(
                "Hangi dosyayı sileyim?" if tr else "Which file should I delete?"
            )
        deletes = [{"path": p} for p in _named_paths(text) or [target]]
        return Intent("file", "tool", "file_delete", deletes)
    if has(_MOVE) and (target or mentions_file or verb_led):
        return _move(text, folded, target, tr)
    if has(_REPLACE) and target:
        pair = [q for q in quoted(text) if q != target][:2]
        if len(pair) < 2:
            arrow = re.search(r"(\S+)\s*(?:->|→|=>)\s*(\S+)", unquoted(text))
            pair = [arrow.group(1), arrow.group(2)] if arrow else pair
        if len(pair) == 2:
            return Intent("file", "tool", "file_patch",
                          [{"path": target, "find": pair[0], "replace": pair[1]}])  # fmt: skip
    if has(_APPEND) and target and not has(r"\b(create|olustur\w*)\b"):
        addition = _content(text, target, ctx)
        if addition is None:
            m = re.search(r"\b(?:append|add)\s+(.+?)\s+(?:to|at the end of)\b", unquoted(text))
            addition = m.group(1) if m else None
        if not addition or addition == _NO_VALUE:
            return _ask("Ne ekleyeyim?" if tr else "What should I add to the file?")
        dest = _destination(text, paths(text)) or target
        return Intent("file", "tool", "file_patch", [{"path": dest, "append": addition}])
    if has(_EMPTY) and target and not has(r"\b(create|olustur\w*)\b"):
        return Intent("file", "tool", "file_write", [{"path": target, "content": ""}])
    if has(_WRITE) and (target or mentions_file):
        if not target:
            return _ask("Dosyanın adı ne olsun?" if tr else "What should the file be called?")
        dest = _destination(text, paths(text)) or target
        source = next((p for p in _named_paths(text) if p != dest), None)
        if source and has(r"\b(summary|summari[sz]e|ozet\w*)\b"):
            return Intent("file", "tool", "file_write", [{"path": dest, "content": ""}],
                          detail=f"summary-of:{source}")  # fmt: skip
        target = dest
        content = _content(text, target, ctx)
        if content == _NO_VALUE:
            return _ask("Hangi sonucu yazayım? Henüz bir sonucum yok." if tr
                        else "Which result should I write? I have none yet.")  # fmt: skip
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
        assess = "assess" if has(_SAFETY) else ""
        reads = [{"path": p} for p in paths(text) or [target]]
        return Intent("file", "tool", "file_read", reads, detail=assess)
    if target and (has(_SAFETY) or (mentions_file and re.search(r"\?\s*$", text))):
        return Intent("file", "tool", "file_read", [{"path": target}],
                      detail="assess" if has(_SAFETY) else "")  # fmt: skip
    return None
