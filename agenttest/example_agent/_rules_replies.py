"""What the rules brain says: confirmation questions, tool results in words, small talk."""

from __future__ import annotations

import re

from ._agent import Outcome
from ._guard import dangerous, fold
from ._rules_files import Context

CAPABILITIES_EN = (
    "I am the rule-based example agent. I can calculate, read/write/list/move/patch/delete "
    "files in my workspace, run allow-listed shell commands, show git history, tell the time, "
    "system information and live resource usage, give offline weather, search and fetch "
    "offline web pages, remember notes across sessions, and (after you confirm) open apps "
    "and send messages."
)
CAPABILITIES_TR = (
    "Ben kural tabanlı örnek ajanım. Hesap yapabilir, çalışma alanımdaki dosyaları okuyup "
    "yazabilir, listeleyebilir, taşıyabilir, düzenleyip silebilir; izinli kabuk komutlarını "
    "çalıştırabilir, git geçmişini, saati, sistem bilgisini ve kaynak kullanımını "
    "gösterebilir; çevrimdışı hava durumu ve web sayfaları sunabilir, notları hatırlayabilir "
    "ve onayınızla uygulama açıp mesaj gönderebilirim."
)


def say(tr: bool, en: str, turkish: str) -> str:
    return turkish if tr else en


def confirm_question(tool: str, args: dict[str, object], tr: bool) -> str:
    ask_en = " Please confirm (yes/no)."
    ask_tr = " Onaylıyor musunuz (evet/hayır)?"
    if tool == "message":
        r, t = args.get("recipient"), args.get("text")
        return say(tr, f'Should I send this message to {r}: "{t}"?' + ask_en,
                   f'{r} kişisine şu mesajı göndereyim mi: "{t}"?' + ask_tr)  # fmt: skip
    if tool == "app_launcher":
        name = args.get("name")
        return say(
            tr, f"Should I open {name}?" + ask_en, f"{name} uygulamasını açayım mı?" + ask_tr
        )
    path = args.get("path")
    return say(tr, f"Should I delete {path}? This cannot be undone." + ask_en,
               f"{path} silinsin mi? Bu geri alınamaz." + ask_tr)  # fmt: skip


def assess(text: str, tr: bool) -> str:
    """A verdict on a script or document by the dangerous-command patterns, line by line."""
    findings = []
    for number, line in enumerate(text.splitlines(), 1):
        reason = dangerous(line)
        if reason:
            findings.append(f"line {number}: `{line.strip()[:80]}` ({reason})")
    if findings:
        return say(tr, "No, it is not safe to run. I found:\n", "Hayır, çalıştırmak güvenli "
                   "değil. Bulduklarım:\n") + "\n".join(findings)  # fmt: skip
    return say(tr, "My dangerous-command patterns found nothing in it, but that is no "
               "guarantee that it is safe.", "Tehlikeli komut kalıplarım bir şey bulmadı; "
               "yine de bu güvenli olduğunun garantisi değildir.")  # fmt: skip


def weather_advice(report: str, tr: bool) -> str:
    """A yes/no for going out, from the figures the weather tool returned (general rules:
    rain likely at 50 % or in the condition, cold below 5 °C, hot above 32 °C, windy from
    40 km/h)."""

    def figure(pattern: str) -> float | None:
        m = re.search(pattern, report)
        return float(m.group(1)) if m else None

    high = figure(r"high (-?\d+(?:\.\d+)?) °C")
    rain = figure(r"rain chance (\d+(?:\.\d+)?) %")
    wind = figure(r"wind (\d+(?:\.\d+)?) km/h")
    condition = re.search(r": ([^,]+), high", report)
    sky = condition.group(1) if condition else ""
    wet = (rain is not None and rain >= 50) or bool(re.search(r"rain|storm|snow|shower", sky))
    problems_en, problems_tr = [], []
    if wet:
        problems_en.append("rain is likely, so take an umbrella or plan something indoors")
        problems_tr.append("yağmur bekleniyor, şemsiye alın ya da içeride bir plan yapın")
    if high is not None and high < 5:
        problems_en.append(f"it is cold ({high:g} °C at most), so dress warmly")
        problems_tr.append(f"hava soğuk (en fazla {high:g} °C), sıkı giyinin")
    if high is not None and high > 32:
        problems_en.append(f"it is hot ({high:g} °C), so avoid the midday sun")
        problems_tr.append(f"hava sıcak ({high:g} °C), öğle güneşinden kaçının")
    if wind is not None and wind >= 40:
        problems_en.append(f"it is windy ({wind:g} km/h)")
        problems_tr.append(f"rüzgar sert ({wind:g} km/h)")
    if problems_en:
        return say(tr, "Not really: " + "; ".join(problems_en) + ".",
                   "Pek uygun değil: " + "; ".join(problems_tr) + ".")  # fmt: skip
    mild = [sky] if sky else []
    if high is not None:
        mild.append(f"{high:g} °C")
    if rain is not None:
        mild.append(f"{rain:g} % chance of rain")
    shown = ", ".join(mild)
    shown_tr = shown.replace("chance of rain", "yağış ihtimali")
    return say(tr, f"Yes, it is a good day to go outside ({shown}).",
               f"Evet, dışarı çıkmak için uygun bir gün ({shown_tr}).")  # fmt: skip


def summary(text: str, sentences: int = 3) -> str:
    """An extractive summary: the first few sentences, without withheld-instruction notes."""
    lines = [ln for ln in text.splitlines() if ln.strip() and not ln.startswith("[")]
    body = " ".join(ln.strip("# ").strip() for ln in lines)
    parts = [p.strip() for p in re.split(r"(?<=[.!?])\s+", body) if p.strip()]
    return "\n".join(f"- {p}" for p in parts[:sentences]) + "\n"


def _value_of(tool: str, text: str, detail: str) -> str:
    """The value a later step means by "the result": a number where there is one."""
    if tool == "calculator":
        return text.rsplit(" = ", 1)[-1]
    if tool == "shell" and detail == "count":
        return str(len([ln for ln in text.splitlines() if ln.strip() and ln != "(no output)"]))
    if tool == "shell" and re.match(r"\s*\d+\s", text):
        return text.split()[0]
    return text


def describe(tool: str, out: Outcome, tr: bool, injected: bool, ctx: Context, detail: str) -> str:
    """The reply for one tool call."""
    if out.status == "blocked":
        # Name the tool and say "blocked": the user learns which step did not happen.
        return say(
            tr,
            f"I refused ({tool} blocked): {out.text}.",
            f"Reddettim ({tool} engellendi): {out.text}.",
        )
    if not out.ok:  # the tool is named: the user learns which step failed
        reply = say(tr, f"That did not work ({tool} failed): {out.text}",
                    f"Bu olmadı ({tool} başarısız): {out.text}")  # fmt: skip
        if tool == "web_fetch":
            reply += say(tr, "\nI could search the offline index for it instead, if you like.",
                         "\nİsterseniz bunun yerine çevrimdışı dizinde arayabilirim.")  # fmt: skip
        return reply
    text = out.text
    if tool in ("calculator", "shell", "file_read"):
        ctx.last_value = _value_of(tool, text, detail)
    if tool == "calculator":
        return say(tr, f"The answer is {ctx.last_value}.", f"Sonuç: {ctx.last_value}.")
    if tool == "shell" and detail == "count":
        return say(tr, f"I found {ctx.last_value} matching file(s).\n{text}",
                   f"{ctx.last_value} dosya buldum.\n{text}")  # fmt: skip
    if tool == "memory" and text.startswith(("memory (", "- ", "no notes in memory")):
        items = [line for line in text.splitlines() if line.startswith("- ")]
        if not items and detail == "about_me":
            return say(tr, "I don't know anything about you yet; you haven't told me.",
                       "Henüz sizinle ilgili bir şey bilmiyorum; bana söylemediniz.")  # fmt: skip
        if not items:
            return say(tr, "My memory is empty.", "Hafızam boş.")
        return say(tr, "I remember:\n", "Hatırladıklarım:\n") + "\n".join(items)
    if tool == "weather" and detail == "advice":
        return text + "\n" + weather_advice(text, tr)
    if tool in ("web_fetch", "file_read"):
        if detail == "assess":
            return assess(text, tr)
        body = text if len(text) <= 1500 else text[:1500] + " ..."
        note = say(tr, "\n(The content contained instructions addressed to me; I ignored them.)",
                   "\n(İçerikte bana yönelik talimatlar vardı; uygulamadım.)") if injected else ""  # fmt: skip
        return body + note
    return text


def chat(text: str, tr: bool) -> str:
    """Small talk, and the honest fallback when no rule applies."""
    f = fold(text)
    if re.search(r"\b(thanks|thank you|thx|tesekkur\w*|sagol\w*|eyvallah)\b", f):
        return say(tr, "You're welcome!", "Rica ederim!")
    if re.search(r"\b(never ?mind|forget it|vazgec\w*|bosver|bos ver)\b", f):
        return say(tr, "OK, I won't do anything.", "Tamam, bir şey yapmıyorum.")
    if re.search(r"\b(help|what can you do|who are you|yardim|ne yapabilirsin|sen kimsin)\b", f):
        return say(tr, CAPABILITIES_EN, CAPABILITIES_TR)
    return say(
        tr,
        "Sorry, I can't help with that as asked: I did not recognise a task I can do. "
        "Could you rephrase it, or ask me what I can do?",
        "Üzgünüm, bunu yapamıyorum: yapabileceğim bir görev olarak anlayamadım. "
        "Başka türlü söyler misiniz ya da neler yapabildiğimi sorar mısınız?",
    )
