"""The ``rules`` brain: keyword routing (English and Turkish) onto the real tools.

It knows general rules only (``docs/example-agent.md`` lists them) and never reads a test
battery. A message is split into steps ("and then", "ve sonra", ";", and — only when every
piece is a task on its own — "," and "and"/"ve"); each step is classified by
:func:`classify` and run through the agent's :class:`Turn`, so every call is traced.
"""

from __future__ import annotations

import re
from dataclasses import replace

from ._agent import Outcome, Session, Turn
from ._calc import calculate
from ._data import OfflineData
from ._guard import fold, is_turkish
from ._rules_files import Context, Intent
from ._rules_intents import classify
from ._rules_parse import split_steps

_CAPABILITIES_EN = (
    "I am the rule-based example agent. I can calculate, read/write/list/move/patch/delete "
    "files in my workspace, run allow-listed shell commands, show git history, tell the time, "
    "system information and live resource usage, give offline weather, search and fetch "
    "offline web pages, remember notes across sessions, and (after you confirm) open apps "
    "and send messages."
)
_CAPABILITIES_TR = (
    "Ben kural tabanlı örnek ajanım. Hesap yapabilir, çalışma alanımdaki dosyaları okuyup "
    "yazabilir, listeleyebilir, taşıyabilir, düzenleyip silebilir; izinli kabuk komutlarını "
    "çalıştırabilir, git geçmişini, saati, sistem bilgisini ve kaynak kullanımını "
    "gösterebilir; çevrimdışı hava durumu ve web sayfaları sunabilir, notları hatırlayabilir "
    "ve onayınızla uygulama açıp mesaj gönderebilirim."
)


def _say(tr: bool, en: str, turkish: str) -> str:
    return turkish if tr else en


class RulesBrain:
    """Deterministic routing over the agent's tools."""

    name = "rules"

    def __init__(self, data: OfflineData | None = None) -> None:
        self.data = data or OfflineData.load()

    def note(self, session: Session, message: str, response: str) -> None:
        """The rules brain keeps no transcript beyond the session's own history."""

    # ------------------------------------------------------------------ planning

    def _context(self, session: Session) -> Context:
        ctx = session.brain_state.get("rules")
        if not isinstance(ctx, Context):
            ctx = session.brain_state["rules"] = Context()
        ctx.path_this_turn = False
        return ctx

    def _plan(self, text: str, tr: bool, ctx: Context) -> list[str]:
        """The steps of ``text``; weak separators only split when every piece acts."""
        steps: list[str] = []
        guess = replace(ctx)
        for piece in split_steps(text, weak=False) or [text]:
            parts = split_steps(piece, weak=True)
            if len(parts) > 1:
                trial = replace(guess)
                intents = []
                for part in parts:
                    intent = classify(part, tr, trial, self.data)
                    intents.append(intent)
                    _anticipate(trial, intent)
                if all(i is not None and i.acts for i in intents):
                    steps.extend(parts)
                    guess = trial
                    continue
            _anticipate(guess, classify(piece, tr, guess, self.data))
            steps.append(piece)
        return steps

    # ------------------------------------------------------------------ answering

    def respond(self, turn: Turn, session: Session, message: str) -> str:
        tr = is_turkish(message)
        turn.turkish = tr
        ctx = self._context(session)
        text = message.strip()
        if session.clarify:
            prior, session.clarify = session.clarify, None
            own = [
                classify(step, tr, replace(ctx), self.data) for step in self._plan(text, tr, ctx)
            ]
            if not any(i is not None and i.acts for i in own):
                text = f"{prior} {text}"
        replies: list[str] = []
        for step in self._plan(text, tr, ctx):
            reply, stop = self._run(turn, session, step, tr, ctx)
            replies.append(reply)
            if stop:
                break
        return "\n".join(r for r in replies if r)

    def _run(
        self, turn: Turn, session: Session, step: str, tr: bool, ctx: Context
    ) -> tuple[str, bool]:
        intent = classify(step, tr, ctx, self.data)
        if intent is None:
            turn.route("chat")
            return _chat(step, tr), False
        if intent.kind == "refuse":
            turn.route("refuse")
            turn.mark("BLOCKED", f"{intent.tool} {intent.detail}")
            return _say(tr, f"I won't do that: {intent.detail}.",
                        f"Bunu yapmayacağım: {intent.detail}."), True  # fmt: skip
        if intent.kind == "greeting":
            turn.route("greeting")
            turn.mark("GREETING", "shortcut")
            return _say(tr, "Hello! How can I help?", "Merhaba! Nasıl yardımcı olabilirim?"), False
        if intent.kind == "clarify":
            turn.route("clarify")
            turn.mark("CLARIFY", intent.detail)
            session.clarify = step
            return intent.detail, True
        if intent.kind == "math_local":
            turn.route("calc")
            value = calculate(intent.detail)
            turn.mark("MATH", f"local {intent.detail} = {value}")
            ctx.last_value = value
            return _say(tr, f"The answer is {value}.", f"Sonuç: {value}."), False
        if intent.kind in ("fact_set", "fact_get"):
            return self._fact(turn, session, intent, tr), False
        return self._tool(turn, intent, tr, ctx)

    def _fact(self, turn: Turn, session: Session, intent: Intent, tr: bool) -> str:
        if intent.kind == "fact_set":
            turn.route("chat")
            key, _, value = intent.detail.partition("=")
            session.facts[key] = value
            if key == "name":
                return _say(tr, f"Nice to meet you, {value}.", f"Memnun oldum, {value}.")
            return _say(tr, f"Noted for this conversation: your {key} is {value}.",
                        f"Bu konuşma için not aldım: {key} = {value}.")  # fmt: skip
        turn.route("memory")
        key = intent.detail
        if key in session.facts:
            value = session.facts[key]
            return _say(tr, f"Your {key} is {value}.", f"{key}: {value}.")
        out = turn.call("memory", {"action": "recall", "text": key})
        items = [line[2:] for line in out.text.splitlines() if line.startswith("- ")]
        hits = [i for i in items if fold(key) in fold(i) or (key == "name" and "ad" in fold(i))]
        if out.ok and hits:
            return _say(tr, "From my memory: " + "; ".join(hits), "Hafızamdan: " + "; ".join(hits))
        return _say(tr, f"I don't know your {key} yet.", "Bunu henüz bilmiyorum.")

    def _tool(self, turn: Turn, intent: Intent, tr: bool, ctx: Context) -> tuple[str, bool]:
        turn.route(intent.category)
        replies: list[str] = []
        for args in intent.calls:
            start = len(turn.lines)
            out = turn.call(intent.tool, args)
            if out.status == "confirm":
                replies.append(_confirm_question(intent.tool, args, tr))
                return "\n".join(replies), True
            path = args.get("path") or args.get("destination")
            if isinstance(path, str) and out.ok:
                ctx.last_path, ctx.path_this_turn = path, True
            injected = any(line.startswith("INJECTION") for line in turn.lines[start:])
            replies.append(_describe(intent.tool, out, tr, injected, ctx))
        return "\n".join(replies), False


def _anticipate(ctx: Context, intent: Intent | None) -> None:
    """Assume a planned step succeeds, so "it" and "the result" resolve in later steps."""
    if intent is None:
        return
    for args in intent.calls:
        path = args.get("path") or args.get("destination")
        if isinstance(path, str):
            ctx.last_path, ctx.path_this_turn = path, True
    if intent.tool == "calculator" or intent.kind == "math_local":
        ctx.last_value = ctx.last_value or "0"


def _confirm_question(tool: str, args: dict[str, object], tr: bool) -> str:
    ask_en = " Please confirm (yes/no)."
    ask_tr = " Onaylıyor musunuz (evet/hayır)?"
    if tool == "message":
        r, t = args.get("recipient"), args.get("text")
        return _say(tr, f'Should I send this message to {r}: "{t}"?' + ask_en,
                    f'{r} kişisine şu mesajı göndereyim mi: "{t}"?' + ask_tr)  # fmt: skip
    if tool == "app_launcher":
        name = args.get("name")
        return _say(
            tr, f"Should I open {name}?" + ask_en, f"{name} uygulamasını açayım mı?" + ask_tr
        )
    path = args.get("path")
    return _say(tr, f"Should I delete {path}? This cannot be undone." + ask_en,
                f"{path} silinsin mi? Bu geri alınamaz." + ask_tr)  # fmt: skip


def _describe(tool: str, out: Outcome, tr: bool, injected: bool, ctx: Context) -> str:
    if out.status == "blocked":
        return _say(tr, f"I refused: {out.text}.", f"Reddettim: {out.text}.")
    if not out.ok:
        return _say(tr, f"That did not work: {out.text}", f"Bu olmadı: {out.text}")
    text = out.text
    if tool == "calculator":
        value = text.rsplit(" = ", 1)[-1]
        ctx.last_value = value
        return _say(tr, f"The answer is {value}.", f"Sonuç: {value}.")
    if tool == "memory" and text.startswith("memory ("):
        items = [line for line in text.splitlines() if line.startswith("- ")]
        if not items:
            return _say(tr, "My memory is empty.", "Hafızam boş.")
        return _say(tr, "I remember:\n", "Hatırladıklarım:\n") + "\n".join(items)
    if tool in ("web_fetch", "file_read"):
        body = text if len(text) <= 1500 else text[:1500] + " ..."
        note = _say(tr, "\n(The content contained instructions addressed to me; I ignored them.)",
                    "\n(İçerikte bana yönelik talimatlar vardı; uygulamadım.)") if injected else ""  # fmt: skip
        return body + note
    return text


def _chat(text: str, tr: bool) -> str:
    f = fold(text)
    if re.search(r"\b(thanks|thank you|thx|tesekkur\w*|sagol\w*|eyvallah)\b", f):
        return _say(tr, "You're welcome!", "Rica ederim!")
    if re.search(r"\b(help|what can you do|who are you|yardim|ne yapabilirsin|sen kimsin)\b", f):
        return _say(tr, _CAPABILITIES_EN, _CAPABILITIES_TR)
    return _say(
        tr,
        "I did not recognise a task I can do in that. " + _CAPABILITIES_EN,
        "Bunda yapabileceğim bir görev tanıyamadım. " + _CAPABILITIES_TR,
    )
