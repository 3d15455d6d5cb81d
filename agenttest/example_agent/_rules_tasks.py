"""Task intents of the rules brain: git, weather, clock, arithmetic, counting, search.

General rules only (documented in ``docs/example-agent.md``).
"""

from __future__ import annotations

import re

from ._data import OfflineData
from ._guard import fold
from ._rules_files import Context, Intent
from ._rules_parse import (
    bare_simple_expression,
    expression,
    first_count,
    folder_name,
    math_text,
    paths,
    quoted,
    unquoted,
)
from ._tools_audio import AUDIO_EXTENSIONS

_TIMEZONES = {
    "tokyo": "Asia/Tokyo", "london": "Europe/London", "londra": "Europe/London",
    "new york": "America/New_York", "istanbul": "Europe/Istanbul", "ankara": "Europe/Istanbul",
    "paris": "Europe/Paris", "berlin": "Europe/Berlin", "utc": "UTC", "gmt": "UTC",
    "los angeles": "America/Los_Angeles", "sydney": "Australia/Sydney",
    "moscow": "Europe/Moscow", "moskova": "Europe/Moscow", "dubai": "Asia/Dubai",
}  # fmt: skip

_SEARCH_STOP = {
    "please", "can", "you", "could", "search", "look", "up", "lookup", "google", "research",
    "browse", "find", "some", "info", "information", "out", "about", "on", "for", "the", "web",
    "internet", "online", "a", "lutfen", "internette", "web'de", "webde", "hakkinda",
    "arastir", "arastirma", "arastirir", "ara", "arama", "yap", "bilgi", "bul", "icin", "misin",
}  # fmt: skip


def _has(pattern: str, text: str) -> bool:
    return re.search(pattern, text) is not None


def git_intent(text: str, f: str) -> Intent:
    action = "log"
    if _has(r"\bstatus\b|\bdurum\w*|\buncommitted\b|\bmodified\b|\bdegisen dosya", f):
        action = "status"
    elif _has(r"\bdiff\b|\bfark\w*|\bwhat changed\b|\bchanges\b|\bdegisiklik\w*", f):
        action = "diff"
    elif _has(r"\bbranch\w*|\bdallar\w*", f):
        action = "branch"
    args: dict[str, object] = {"action": action}
    if action == "log":
        count = first_count(text)
        if count is None and _has(r"\b(last|latest|most recent|son|en son)\s+commit\b(?!s)", f):
            count = 1
        if count is not None:
            args["count"] = count
    where = next((p for p in paths(text) if "." not in p.rsplit("/", 1)[-1]), None)
    where = where or folder_name(text)
    if where:
        args["path"] = where
    return Intent("git", "tool", "git", [args])


def weather_intent(text: str, f: str, data: OfflineData, tr: bool) -> Intent:
    known = (key for alias, key in data.city_names() if _has(rf"\b{re.escape(alias)}\b", f))
    key = next(known, None)
    city = data.cities[key].name if key else None
    if city is None:
        m = re.search(r"\b(?:in|for|at)\s+([A-Z][\w-]+(?:\s+[A-Z][\w-]+)?)", text) or re.search(
            r"\b([A-ZÇĞİÖŞÜ][\wçğıöşü]+)['’](?:da|de|ta|te|nın|nin|un|ün|in|ın)\b", text
        )
        city = m.group(1) if m else None
    if city is None:
        question = "Hangi şehir için?" if tr else "Which city do you mean?"
        return Intent("clarify", "clarify", detail=question)
    day = "tomorrow" if _has(r"\b(tomorrow|yarin\w*)\b", f) else "today"
    advice = "advice" if _has(_ADVICE, f) else ""
    return Intent("weather", "tool", "weather", [{"location": city, "day": day}], detail=advice)


#: A weather question that asks for a judgement, not just the numbers.
_ADVICE = (
    r"\b(good|nice|ok|okay|suitable|safe) (weather |day )?(to|for)\b|\bshould i\b|"
    r"\b(go|going|get) out(side)?\b|\bumbrella\b|\bjacket\b|\bcoat\b|\bpicnic\b|"
    r"\bdisari\w*|\buygun mu\b|\bsemsiye\w*|\bmont\w*|\bceket\w*|\bgerek\w* (mi|mu)\b"
)


def clock_intent(f: str) -> Intent:
    zone = next((z for name, z in _TIMEZONES.items() if _has(rf"\b{name}\b", f)), None)
    return Intent("clock", "tool", "clock", [{"timezone": zone} if zone else {}])


_CUE_BEFORE = re.compile(
    r"(calculate|calc|compute|evaluate|solve|what is|what's|whats|how much is|result of|"
    r"equals?|hesapla\w*|=)\s*:?\s*(the\s+)?$"
)
_CUE_AFTER = re.compile(
    r"\s*(=\s*\??|\?|(nedir|kac|kactir|kac eder|ne eder|eder|sonucu|equals|is what)\s*\??)?"
    r"\s*[.!?]*\s*"
)
_VALUE_PRONOUN = r"\b(that number|the number|the result|that result|it|that|sonucu|bunu|onu)\b"


def calc_intent(text: str, f: str, ctx: Context) -> Intent | None:
    bare = bare_simple_expression(text)
    if bare:
        return Intent("calc", "math_local", detail=bare)
    found = expression(text)
    if found is None and ctx.last_value is not None and _has(_VALUE_PRONOUN, f):
        found = expression(re.sub(_VALUE_PRONOUN, f" {ctx.last_value} ", f, count=1))
        if found and not found[2]:
            found = None  # only "multiply it by 10", not any number next to "it"
    if found is None:
        if _has(r"\b(calculate|compute|hesapla\w*)\b", f):
            return Intent("clarify", "clarify", detail="What should I calculate?")
        return None
    span, _, worded = found
    converted, _ = math_text(text)
    at = converted.find(span)
    before, after = converted[: max(at, 0)], converted[at + len(span) :] if at >= 0 else ""
    dense = len(re.sub(r"\s", "", span)) >= 0.6 * len(re.sub(r"[\s?=!.]", "", text))
    cued = bool(_CUE_BEFORE.search(before)) or bool(_CUE_AFTER.fullmatch(after))
    if worded or dense or cued:
        return Intent("calc", "tool", "calculator", [{"expression": span}])
    return None


_COUNT_LINES = re.compile(
    r"\b(?:how many|count(?: the)?|number of)\s+(lines|words|characters|chars)\b|"
    r"\bkac\s+(satir|kelime|karakter)",
)
_COUNT_FILES = re.compile(
    r"\b(?:how many|count(?: the)?|number of)\s+(?:of\s+)?(?:the\s+)?"
    r"\.?([a-z0-9]{1,10})\s+files\b|\bkac\s+(?:tane\s+)?\.?([a-z0-9]{1,10})\s+dosya"
)


def count_intent(text: str, f: str) -> Intent | None:
    """Counting is done by ``wc``/``find`` in the shell; the brain counts result lines."""
    m = _COUNT_LINES.search(f)
    found = paths(text)
    if m and found:
        unit = m.group(1) or m.group(2)
        flag = {"lines": "-l", "satir": "-l", "words": "-w", "kelime": "-w"}.get(unit, "-m")
        return Intent("shell", "tool", "shell", [{"command": f"wc {flag} {found[0]}"}])
    m = _COUNT_FILES.search(f)
    if m:
        ext = m.group(1) or m.group(2)
        where = folder_name(text) or "."
        command = f"find {where} -type f -name '*.{ext}'"
        return Intent("shell", "tool", "shell", [{"command": command}], detail="count")
    return None


def rewrite_chains(text: str) -> str:
    """ "save the output of CMD to FILE" becomes two steps: run CMD, then save its output."""
    m = re.match(
        r"\s*(?:please\s+)?(?:save|write|store|put)\s+(?:the\s+)?output\s+of\s+(?:the\s+)?"
        r"(?:command\s+)?[`'\"]?(.+?)[`'\"]?(?:\s+command)?\s+(?:to|into|in)\s+(.+)$",
        text,
        re.I,
    )
    if m:
        return f"run `{m.group(1)}` and then save the output to {m.group(2)}"
    m = re.match(r"\s*[`'\"]?(.+?)[`'\"]?\s+komutunun\s+çıktısını\s+(.+)$", text, re.I)
    if m:
        return f"`{m.group(1)}` komutunu çalıştır ve sonra çıktısını {m.group(2)}"
    return text


def search_intent(text: str, tr: bool) -> Intent:
    words = [w for w in unquoted(text).split() if fold(w).strip("?.!:,") not in _SEARCH_STOP]
    query = " ".join(words).strip(" ?.!:'")
    query = " ".join(quoted(text)) or query
    if not query:
        return Intent(
            "clarify", "clarify", detail="Ne arayayım?" if tr else "What should I search for?"
        )
    research = _has(r"\b(research|find out|investigate)\b|\barastir\w*", fold(text))
    return Intent("web", "tool", "web_search", [{"query": query}],
                  detail="research" if research else "")  # fmt: skip


_FILE_OPERATION = (
    r"\b(delete|remove|erase|move|rename|copy|write|create|save|append|replace|list|send|"
    r"open|play|upload)\b|\bsil\w*|\btasi\w*|\bkopyala\w*|\byaz\w*|\bolustur\w*|"
    r"\bkaydet\w*|\blistele\w*|\bgonder\w*|\bcal\b|\bac\b"
)


def audio_intent(text: str, f: str) -> Intent | None:
    """A path with an audio extension is a specific cue: it beats generic verbs such as
    "analyze", "check" or "read" (the file tools cannot make sense of audio anyway). An
    explicit file operation (delete, move, write, ...) still goes to the file tools."""
    audio = [p for p in paths(text) if "." + p.rsplit(".", 1)[-1].lower() in AUDIO_EXTENSIONS]
    if not audio or _has(_FILE_OPERATION, f):
        return None
    cue = "extension-match ." + audio[0].rsplit(".", 1)[-1].lower()
    return Intent("audio", "tool", "audio_analysis", [{"path": p} for p in audio], cue=cue)
