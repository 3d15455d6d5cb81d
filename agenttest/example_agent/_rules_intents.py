"""The routing rules of the rules brain, in priority order (see ``docs/example-agent.md``).

:func:`classify` maps one step of a message to an :class:`Intent` without running anything,
so that a multi-step message can first be checked piece by piece.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from ._data import OfflineData
from ._guard import dangerous, fold
from ._rules_files import Context, Intent, file_intent
from ._rules_parse import (
    as_typed_phrase,
    looks_like_path,
    quoted,
    unquoted,
    urls,
)
from ._rules_tasks import (
    audio_intent,
    calc_intent,
    clock_intent,
    count_intent,
    git_intent,
    search_intent,
    weather_intent,
)
from ._rules_tickets import ticket_intent
from ._tools_files import SHELL_ALLOWED

_GREET_WORDS = (
    r"hi|hello|hey|hiya|howdy|greetings|yo|good (?:morning|afternoon|evening|day)|merhaba\w*|"
    r"selam\w*|slm|mrb|gunaydin|iyi (?:aksamlar|gunler|geceler)|naber|nasilsin\w*|"
    r"how are you(?: doing)?|how'?s it going|what'?s up"
)
_GREET_FILLER = r"there|agent|assistant|friend|bot|dostum|hocam|canim|everyone|all|today"
_GREETING = re.compile(rf"(?:(?:{_GREET_WORDS}|{_GREET_FILLER})[\s,!.?]*)+")
_GREETING_PREFIX = re.compile(
    rf"^(?:(?:{_GREET_WORDS})(?![\w'’]|\.\w)[\s,!.]*)+(?:(?:{_GREET_FILLER})[,!.]+\s*)?"
)

_MEM_RESET = (
    r"\bforget (everything|all|what i told you)|\b(clear|reset|wipe|erase|delete|empty) (your |the "
    r")?(persistent )?memory|\bhafiza(ni|yi) (sil|temizle|sifirla|bosalt)|\bher seyi unut|"
    r"\bhepsini unut"
)
_MEM_RECALL = (
    r"\bwhat do you remember|\bdo you remember|\bwhat did i (tell|ask) you|\brecall\b|"
    r"\bwhat'?s in your memory|\bwhat is in your memory|\bshow (me )?(your )?memory|"
    r"\bfrom (your )?memory|\b(ne|neler|neyi) hatirliyorsun|\bhatirliyor musun|"
    r"\bhafizanda (ne|neler)|\bhatirladiklarin|\bsana ne (soyledim|demistim)|"
    r"\bwhat do you know about me|\bhakkimda (ne|neler) (biliyorsun|hatirliyorsun)"
)
_ABOUT_ME = r"\babout me\b|\bhakkimda\b"
_MEM_SAVE = (
    r"\b(remember|memorize|memorise|keep in mind|note that|don'?t forget)\b|"
    r"\bsave (this |that |it )?(to|in) (your )?memory|\bhatirla\b|\baklinda tut|\bunutma\b|"
    r"\bhafizana (kaydet|al|yaz)"
)
_MEM_SAVE_STRIP = re.compile(
    r"^(please\s+|lutfen\s+)?(remember|memorize|memorise|keep in mind|note|don'?t forget)\s*"
    r"(that\s+|this\s*:?\s*)?|\s*(bunu|sunu)?\s*(hatirla|aklinda tut|unutma|hafizana kaydet)"
    r"\s*[.!:]*\s*$|^(bunu|sunu)\s+(hatirla|aklinda tut)\s*:?\s*",
    re.I,
)
_TELEMETRY_STRICT = (
    r"\bram\b|\bcpu\b|\bprocessor\b|\bislemci\w*|\bbellek\w*|\bmemory (usage|use|used|free|"
    r"available)\b|\b(how much|free|available|used) (ram|memory)\b|\bdisk (space|usage|usage)\b|"
    r"\bfree (disk )?space\b|\bload average\b|\bsystem load\b|\bresource usage\b|"
    r"\bdisk\w* (alan\w*|kullanim\w*|doluluk)|\bbos alan\b|\bhafiza kullanim\w*|\bsistem kaynak\w*"
)
_SYSINFO = (
    r"\b(os|operating system|kernel|hostname|host name|platform|distro\w*|machine name)\b|"
    r"\bsystem info\w*|\b(python|linux|windows|macos|system) version\b|\bisletim sistem\w*|"
    r"\bsistem bilgi\w*|\bcekirdek\b|\b(python|sistem|linux)\w* (surum|versiyon)\w*"
)
_CLOCK = (
    r"\bwhat('?s| is)? (the )?(time|date|day)\b|\btime is it\b|\bcurrent (time|date)\b|"
    r"\btime now\b|\btoday'?s date\b|\b(time|date) (in|today|now)\b|\btell me the (time|date)\b|"
    r"\bwhat day\b|\bwhich day\b|\bclock\b|\bsaat(i|ini)?\b|\bsaat kac|\btarih\w*|\bhangi gun|"
    r"\bgunlerden\b|\bayin kaci|\bbugun ne gun"
)
_WEATHER = (
    r"\b(weather|forecast|temperature|rain\w*|snow\w*|sunny|umbrella|hava|havalar|yagmur\w*|"
    r"sicaklik\w*|derece|semsiye\w*|hava durumu)\b"
)
_MESSAGE = (
    r"\b(send|write|compose)\b.{0,20}\b(message|text|sms|e-?mail|dm)\b|\bmessage\s+(to\s+)?\w|"
    r"\btext\s+\w+\s+(that|saying)\b|\bmesaj\w*\b|\b(e-?posta|eposta|sms)\w*\s+(gonder|at|yolla)|"
    r"^\s*(please\s+)?(send|forward|email|e-mail)\b|\b(gonder|yolla|ilet)\s*[.!]?$"
)
_APP_EN = re.compile(
    r"\b(?:open|launch|start|run)\s+(?:up\s+)?(?:the\s+|my\s+|an?\s+)?(?:app(?:lication)?\s+)?"
    r"([\w.+-]+(?:\s+(?!app\b|application\b|for\b|please\b|now\b)[\w.+-]+)?)",
    re.I,
)
_APP_TR = re.compile(
    r"([\wçğıöşüÇĞİÖŞÜ.+'’-]+(?:\s+[\wçğıöşüÇĞİÖŞÜ.+'’-]+)?)\s+(?:uygulama\w*\s+)?(?:aç|ac|başlat|"
    r"baslat|çalıştır|calistir)\b",
    re.I,
)
_APP_STOP = {"it", "the", "a", "an", "file", "folder", "url", "link", "page", "website",
             "bir", "bunu", "onu", "uygulama", "uygulamayi", "program", "programi",
             "app", "application"}  # fmt: skip
_GIT = r"\bgit\b|\bcommit\w*|\brepo(sitory)?\b|\bbranch\w*|\bdepo\w*|\bdallar\w*"
_SEARCH = (
    r"\b(search|look up|lookup|google|research|browse)\b|\bfind (some )?(info|information|out) "
    r"(about|on)\b|\barastir\w*|\binternette\b|\bweb'?de\b|\bwebde\b|\bara\b|\barama yap|"
    r"\b(find|look for|check)\b.{0,40}\b(on|in) (github|google|the web|the internet|online)\b"
)


def _has(pattern: str, text: str) -> bool:
    return re.search(pattern, text) is not None


def is_greeting(text: str) -> bool:
    f = fold(text).strip()
    return bool(_GREETING.fullmatch(f)) and _has(rf"\b({_GREET_WORDS})\b", f)


def strip_greeting(text: str) -> str:
    m = _GREETING_PREFIX.match(fold(text))
    return text[m.end() :].strip() if m and m.end() < len(text) else text


def _refuse(text: str, reason: str) -> Intent:
    words = text.strip().strip("`").split()
    command = bool(words) and (words[0] in SHELL_ALLOWED or "`" in text)
    reading = _has(r"\b(read|show|print|open|display|oku|goster|icerig)\w*", fold(text))
    tool = "file_read" if reading and not command else "shell"
    return Intent("refuse", "refuse", tool, detail=reason)


def _memory(text: str, f: str) -> Intent | None:
    if _has(_MEM_RESET, f):
        return Intent("memory", "tool", "memory", [{"action": "reset"}])
    if _has(_MEM_RECALL, f):
        about = re.search(r"\babout (?:my )?(.+)$", f) or re.search(
            r"^(?:benim )?(.+?) hakkinda", f
        )
        topic = about.group(1).strip(" ?.!") if about else ""
        if _has(_ABOUT_ME, f):
            topic = ""
        args = {"action": "recall", **({"text": topic} if len(topic) > 2 else {})}
        mode = "about_me" if _has(_ABOUT_ME, f) else ""
        return Intent("memory", "tool", "memory", [args], detail=mode)
    if _has(_MEM_SAVE, f):
        chunks = quoted(text)
        note = chunks[0] if chunks else text.split(":", 1)[1] if ":" in text else text
        note = _MEM_SAVE_STRIP.sub("", note.strip()).strip(" .!:")
        if not note:
            return Intent("clarify", "clarify", detail="What should I remember?")
        return Intent("memory", "tool", "memory", [{"action": "save", "text": note}])
    return None


def _facts(text: str, f: str, tr: bool) -> Intent | None:
    if any(_has(p, f) for p in (_SYSINFO, _TELEMETRY_STRICT, _CLOCK, _WEATHER)):
        return None  # "what is my OS version" asks the machine, not the memory
    if _has(r"\b(adim|ismim) ne\b|\bben kimim\b|\bwho am i\b", f):
        return Intent("memory", "fact_get", detail="name")
    m = re.search(r"\b(?:which|what) ([a-z]+) (?:am i|do i)\b", f)
    if m:
        return Intent("memory", "fact_get", detail=m.group(1))
    m = re.match(r"\s*my ([a-z ]{2,30}?) (?:is now|changed to|has changed to|moved to|became)\s+"
                 r"([^,.!?]+)", f)  # fmt: skip
    if m:
        value = as_typed_phrase(text, m.group(2).strip())
        note = f"my {m.group(1)} is {value}"
        return Intent("memory", "tool", "memory", [{"action": "save", "text": note}])
    m = re.search(r"\b(?:what|when|where|who)(?:'s| is| are| was) my ([a-z ]{2,30}?)\s*\??$", f)
    if m:
        return Intent("memory", "fact_get", detail=m.group(1).strip())
    m = re.match(r"\s*(?:my name is|call me|i am called)\s+([^\s,.!?]+)", text, re.I)
    if m is None and re.fullmatch(r"\s*(?:benim\s+)?(?:adim|ismim)\s+\S+\s*[.!]*\s*", f):
        m = re.match(r"\s*(?:benim\s+)?\S+\s+([^\s,.!?]+)", text)
    if m:
        return Intent("chat", "fact_set", detail=f"name={m.group(1)}")
    m = re.match(r"\s*my ([a-z ]{2,30}?) is ([^.?!]+)", f)
    if m and not urls(text):
        return Intent("chat", "fact_set", detail=f"{m.group(1).strip()}={m.group(2).strip()}")
    return None


def _message(text: str, tr: bool) -> Intent | None:
    plain = unquoted(text)
    m = (
        re.search(r"\bto\s+(?!the\b|me\b|my\b|say\b|a\b|an\b)([\w.@+-]+)", plain, re.I)
        or re.search(r"\bmessage\s+(?!to\b)([A-Z][\w.@+-]*)", plain)
        or re.search(r"([\wçğıöşüÇĞİÖŞÜ.@+-]+?)['’](?:e|a|ye|ya|ne|na)\b", plain)
    )
    recipient = m.group(1).rstrip(".,:") if m else ""
    chunks = quoted(text)
    body = chunks[0] if chunks else ""
    if not body and ":" in plain:
        body = plain.split(":", 1)[1].strip()
    if not body:
        said = re.search(r"\b(?:saying|that says|which says|that)\s+(.+)$", plain, re.I)
        body = said.group(1).strip() if said else ""
    if not recipient or not body:
        question = ("Kime göndereyim ve mesajda ne yazsın?" if tr
                    else "Who should receive the message, and what should it say?")  # fmt: skip
        return Intent("clarify", "clarify", detail=question)
    return Intent(
        "message", "tool", "message", [{"recipient": recipient, "text": body.rstrip(".")}]
    )


def _shell(text: str) -> str | None:
    ticks = re.findall(r"`([^`]+)`", text)
    if ticks:
        return str(ticks[0]).strip()
    words = text.strip().split()
    if words and words[0] in SHELL_ALLOWED:
        rest = words[1] if len(words) > 1 else ""
        if (
            (not rest and words[0] in ("ls", "pwd"))
            or rest.startswith(("-", "'", '"'))
            or (looks_like_path(rest) or words[0] == "echo")
        ):
            return text.strip()
    m = re.search(
        r"\b(?:run|execute|exec)\s+(?:the\s+)?(?:shell\s+)?(command\s+)?(.+)$", text, re.I
    )
    if m and (m.group(1) or m.group(2).split()[0].strip("'\"") in SHELL_ALLOWED):
        command = re.sub(r"\s+(in the workspace|for me|please|now)\s*[.!]?$", "", m.group(2))
        return command.strip().strip("'\"")
    m = re.search(r"^(.+?)\s+komut\w*\s+(calistir|çalıştır|yurut|yürüt)", text.strip(), re.I)
    return m.group(1).strip().strip("'\"") if m else None


def _app(text: str, f: str, tr: bool) -> Intent | None:
    name = ""
    m = _APP_EN.search(text)
    if m:
        name = m.group(1)
    else:
        m = _APP_TR.search(text)
        if m:
            raw = re.sub(r"^(l[üu]tfen|bana|hemen|şimdi|simdi)\s+", "", m.group(1), flags=re.I)
            name = re.sub(r"['’]\w+$", "", raw)
            if name == raw:
                name = re.sub(r"(?<=[a-zçğıöşü])(n[iıuü]|y[iıuü])$", "", name)
    app_word = _has(r"\b(app|application|program|uygulama\w*)\b", f)
    cleaned = name.strip(" .!?")
    first = fold(cleaned.split()[0]) if cleaned else ""
    if not cleaned or first in _APP_STOP or first.startswith("dosya") or looks_like_path(cleaned):
        if app_word and _has(r"\b(open|launch|start|run)\b|\b(ac|baslat|calistir)\b", f):
            question = "Hangi uygulamayı açayım?" if tr else "Which application should I open?"
            return Intent("clarify", "clarify", detail=question)
        return None
    return Intent("app", "tool", "app_launcher", [{"name": cleaned}])


def _shell_intent(command: str | None) -> Intent | None:
    return Intent("shell", "tool", "shell", [{"command": command}]) if command else None


def classify(text: str, tr: bool, ctx: Context, data: OfflineData) -> Intent | None:
    """The intent of one step, or None when no rule applies (the brain then chats)."""
    reason = dangerous(text)
    if reason:
        return _refuse(text, reason)
    if is_greeting(text):
        return Intent("greeting", "greeting")
    rest = strip_greeting(text)
    if rest != text and rest:
        return classify(rest, tr, ctx, data)
    f = fold(unquoted(text))
    found_urls = urls(text)
    if found_urls and not _has(_SEARCH, f):
        return Intent("web", "tool", "web_fetch", [{"url": u} for u in found_urls])
    if _has(_TELEMETRY_STRICT, f) and not _has(_MEM_RESET, f):
        return Intent("system", "tool", "telemetry", [{}])
    rules: tuple[Callable[[], Intent | None], ...] = (
        lambda: ticket_intent(text),  # before files: "move ticket X to done" is no file move
        lambda: _memory(text, f),
        lambda: _facts(text, f, tr),
        lambda: _message(text, tr) if _has(_MESSAGE, f) else None,
        lambda: _shell_intent(_shell(text)),
        lambda: audio_intent(text, f),
        lambda: count_intent(text, f),
        lambda: git_intent(text, f) if _has(_GIT, f) else None,
        lambda: file_intent(text, tr, ctx),
        lambda: _app(text, f, tr),
        lambda: weather_intent(text, f, data, tr) if _has(_WEATHER, f) else None,
        lambda: Intent("system", "tool", "sysinfo", [{}]) if _has(_SYSINFO, f) else None,
        lambda: clock_intent(f) if _has(_CLOCK, f) else None,
        lambda: calc_intent(text, f, ctx),
        lambda: search_intent(text, tr) if _has(_SEARCH, f) else None,
    )
    for rule in rules:
        intent = rule()
        if intent is not None:
            return intent
    return None
