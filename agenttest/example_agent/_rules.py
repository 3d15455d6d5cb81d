"""The ``rules`` brain: keyword routing (English and Turkish) onto the real tools.

It knows general rules only (``docs/example-agent.md`` lists them) and never reads a test
battery. A message is split into steps ("and then", "ve sonra", ";", and — only when every
piece is a task on its own — "," and "and"/"ve"); each step is classified by
:func:`classify` and run through the agent's :class:`Turn`, so every call is traced.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import replace

from ._agent import Session, Turn, confirmation
from ._calc import calculate
from ._data import OfflineData
from ._guard import fold, is_turkish
from ._rules_evidence import evidence_reply, whole_page
from ._rules_files import Context, Intent
from ._rules_intents import classify
from ._rules_parse import split_steps
from ._rules_replies import chat, confirm_question, describe, say, summary
from ._rules_tasks import rewrite_chains
from ._rules_tickets import run_ticket


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
        pieces: list[str] = []
        for piece in split_steps(text, weak=False) or [text]:
            rewritten = rewrite_chains(piece)
            pieces.extend(split_steps(rewritten, weak=False) if rewritten != piece else [piece])
        steps: list[str] = []
        guess = replace(ctx)
        for piece in pieces:
            parts = [p for p in split_steps(piece, weak=True) if not _NO_OP.fullmatch(fold(p))]
            if len(parts) > 1:
                trial = replace(guess)
                intents: list[Intent] = []
                for part in parts:
                    intent = classify(part, tr, trial, self.data)
                    if intent is None or not intent.acts:
                        break
                    intents.append(intent)
                    _anticipate(trial, intent)
                if len(intents) == len(parts) and not _same_target(intents):
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
        answered = evidence_reply(turn, text)
        if answered is not None:
            return answered
        folded = fold(text)
        refusal, ctx.last_refusal = ctx.last_refusal, None
        if refusal and _INSIST.search(folded):
            return self._refuse(turn, ctx, refusal, tr, again=True)
        if session.clarify:
            prior, session.clarify = session.clarify, None
            if confirmation(text) is False or _NEVER_MIND.search(folded):
                turn.route("chat")
                return say(tr, "OK, I won't do it.", "Tamam, yapmıyorum.")
            own = [classify(p, tr, replace(ctx), self.data) for p in self._plan(text, tr, ctx)]
            if not any(i is not None and i.acts for i in own):
                text = f"{prior} {text}"
        steps = self._plan(text, tr, ctx)
        together = self._independent(steps, tr, ctx)
        if together and all(_parallel_ok(turn, i) for i in together):
            return self._run_parallel(turn, together, tr, ctx)
        if together:
            changing = next(i.tool for i in together if not _parallel_ok(turn, i))
            names = " ".join(i.tool for i in together for _ in i.calls)
            turn.mark("SEQUENTIAL", f"{len(together)} {names}: {changing} is not read-only")
        replies: list[str] = []
        for step in steps:
            reply, stop = self._run(turn, session, step, tr, ctx)
            replies.append(reply)
            if stop:
                break
        return "\n".join(r for r in replies if r)

    def _independent(self, steps: list[str], tr: bool, ctx: Context) -> list[Intent] | None:
        """The intents of two or more tool steps when none needs an earlier one's result.

        A step depends on an earlier one when it reads differently once the earlier steps
        are assumed done ("it", "that file", "the result"); then the steps form a chain.
        """
        if len(steps) < 2:
            return None
        intents: list[Intent] = []
        guess = replace(ctx)
        for step in steps[1:]:
            if _BACK_REFERENCE.search(_DUMMY_IT.sub(" ", fold(step))):
                return None
        for step in steps:
            alone = classify(step, tr, replace(ctx), self.data)
            if alone is None or alone.kind != "tool" or alone.detail not in _PLAIN_DETAILS:
                return None
            if classify(step, tr, guess, self.data) != alone:
                return None
            intents.append(alone)
            _anticipate(guess, alone)
        return intents

    def _run_parallel(self, turn: Turn, intents: list[Intent], tr: bool, ctx: Context) -> str:
        """Independent read-only steps: dispatched together, answered in the asked order."""
        for intent in intents:
            if intent.cue:
                turn.mark("CUE", intent.cue)
            turn.route(intent.category)
        calls = [(i.tool, args) for i in intents for args in i.calls]
        outs = iter(turn.call_parallel(calls))
        replies = []
        for intent in intents:
            for args in intent.calls:
                out = next(outs)
                path = args.get("path")
                if isinstance(path, str) and out.ok:
                    ctx.last_path, ctx.path_this_turn = path, True
                injected = any(n.startswith("INJECTION") for n in out.notes)
                replies.append(describe(intent.tool, out, tr, injected, ctx, intent.detail))
        return "\n".join(r for r in replies if r)

    def _refuse(self, turn: Turn, ctx: Context, refusal: str, tr: bool, again: bool) -> str:
        reason = refusal.partition(" ")[2]
        turn.route("refuse")
        turn.mark("BLOCKED", refusal)
        ctx.last_refusal = refusal
        if again:
            return say(tr, f"I still won't do that: {reason}. It is dangerous, and asking "
                       "again does not change that.", f"Yine de yapmayacağım: {reason}. Bu "
                       "tehlikeli; tekrar sormak bunu değiştirmez.")  # fmt: skip
        return say(tr, f"I won't do that: {reason}.", f"Bunu yapmayacağım: {reason}.")

    def _run(
        self, turn: Turn, session: Session, step: str, tr: bool, ctx: Context
    ) -> tuple[str, bool]:
        intent = classify(step, tr, ctx, self.data)
        if intent is None:
            turn.route("chat")
            return chat(step, tr), False
        if intent.kind == "refuse":
            return self._refuse(turn, ctx, f"{intent.tool} {intent.detail}", tr, False), True
        if intent.kind == "greeting":
            turn.route("greeting")
            turn.mark("GREETING", "shortcut")
            return say(tr, "Hello! How can I help?", "Merhaba! Nasıl yardımcı olabilirim?"), False
        if intent.kind == "clarify":
            return self._clarify(turn, session, step, intent.detail), True
        if intent.kind == "math_local":
            turn.route("calc")
            value = calculate(intent.detail)
            turn.mark("MATH", f"local {intent.detail} = {value}")
            ctx.last_value = value
            return say(tr, f"The answer is {value}.", f"Sonuç: {value}."), False
        if intent.kind in ("fact_set", "fact_get"):
            return self._fact(turn, session, intent, tr), False
        return self._tool(turn, session, step, intent, tr, ctx)

    def _clarify(self, turn: Turn, session: Session, step: str, question: str) -> str:
        turn.route("clarify")
        turn.mark("CLARIFY", question)
        session.clarify = step
        return question

    def _fact(self, turn: Turn, session: Session, intent: Intent, tr: bool) -> str:
        if intent.kind == "fact_set":
            turn.route("chat")
            key, _, value = intent.detail.partition("=")
            session.facts[key] = value
            if key == "name":
                return say(tr, f"Nice to meet you, {value}.", f"Memnun oldum, {value}.")
            return say(tr, f"Noted for this conversation: your {key} is {value}.",
                       f"Bu konuşma için not aldım: {key} = {value}.")  # fmt: skip
        turn.route("memory")
        key = intent.detail
        known = next((k for k in session.facts if key == k or key in k.split()), None)
        if known is not None:
            value = session.facts[known]
            return say(tr, f"Your {known} is {value}.", f"{known}: {value}.")
        out = turn.call("memory", {"action": "recall", "text": key})
        items = [line[2:] for line in out.text.splitlines() if line.startswith("- ")]
        hits = [i for i in items if fold(key) in fold(i) or (key == "name" and "ad" in fold(i))]
        if out.ok and hits:  # the latest note wins when a fact was updated
            return say(tr, f"From my memory: {hits[-1]}", f"Hafızamdan: {hits[-1]}")
        return say(tr, f"I don't know your {key}; you haven't told me.",
                   "Bunu bilmiyorum; bana söylemediniz.")  # fmt: skip

    def _tool(self, turn: Turn, session: Session, step: str, intent: Intent, tr: bool,
              ctx: Context) -> tuple[str, bool]:  # fmt: skip
        if intent.cue:
            turn.mark("CUE", intent.cue)
        turn.route(intent.category)
        if intent.detail.startswith("summary-of:"):
            return self._summarise(turn, intent, tr, ctx)
        if intent.tool == "ticket":
            return run_ticket(turn, intent, tr), False
        if intent.detail.startswith(("ext:", "move-all:", "delete-all:")):
            return self._expand(turn, session, step, intent, tr, ctx)
        replies: list[str] = []
        for args in intent.calls:
            start = len(turn.lines)
            out = whole_page(turn, args, turn.call(intent.tool, args), intent.tool)
            if out.status == "confirm":
                replies.append(confirm_question(intent.tool, args, tr))
                return "\n".join(replies), True
            path = args.get("path") or args.get("destination")
            if isinstance(path, str) and out.ok:
                ctx.last_path, ctx.path_this_turn = path, True
            injected = any(line.startswith("INJECTION") for line in turn.lines[start:])
            replies.append(describe(intent.tool, out, tr, injected, ctx, intent.detail))
        if intent.tool == "memory" and intent.calls[0].get("action") == "save":
            _keep_fact(session, str(intent.calls[0].get("text", "")))
        if intent.detail == "research" and replies and turn.calls and turn.calls[-1].ok:
            replies.append(self._read_results(turn, turn.calls[-1].result, tr, ctx))
        if intent.detail == "about_me" and session.facts:
            facts = "; ".join(f"{k}: {v}" for k, v in session.facts.items())
            replies.append(say(tr, f"In this conversation you told me: {facts}.",
                               f"Bu konuşmada bana söyledikleriniz: {facts}."))  # fmt: skip
        return "\n".join(replies), False

    def _read_results(self, turn: Turn, results: str, tr: bool, ctx: Context) -> str:
        """Research: fetch the top search result; an empty page is retried with the next."""
        last = None
        for url in re.findall(r"<(https?://[^>]+)>", results)[:MAX_RESEARCH_FETCHES]:
            start = len(turn.lines)
            page = turn.call("web_fetch", {"url": url})
            injected = any(line.startswith("INJECTION") for line in turn.lines[start:])
            last = describe("web_fetch", page, tr, injected, ctx, "")
            if page.ok or not page.text.startswith("empty page"):
                return last
        return last or ""

    def _expand(self, turn: Turn, session: Session, step: str, intent: Intent, tr: bool,
                ctx: Context) -> tuple[str, bool]:  # fmt: skip
        """List a folder first, then act on what it holds (one match, or every file)."""
        folder = str(intent.calls[0]["path"]).rstrip("/")
        listing = turn.call("file_list", {"path": folder})
        if not listing.ok:
            return describe("file_list", listing, tr, False, ctx, ""), True
        names = _files_in(listing.text)
        rule, _, value = intent.detail.partition(":")
        if rule == "move-all":
            if not names:
                return say(tr, f"{folder} has no files to move.", f"{folder} boş."), False
            replies = []
            for name in names:
                args = {"source": f"{folder}/{name}", "destination": f"{value}/{name}"}
                replies.append(describe("file_move", turn.call("file_move", args), tr, False,
                                        ctx, ""))  # fmt: skip
            return "\n".join(replies), False
        if rule == "delete-all":
            return self._delete_all(turn, session, folder, names, tr)
        matches = [n for n in names if n.lower().endswith(value.lower())]
        if len(matches) != 1:
            found = ", ".join(matches) or say(tr, "none", "hiç yok")
            question = say(tr, f"Which file do you mean? Matching {value} files: {found}.",
                           f"Hangi dosya? {value} uzantılı dosyalar: {found}.")  # fmt: skip
            # the buttons answer this question: one per matching file, each a whole request
            turn.choices = [{"label": n, "value": say(tr, f"delete {folder}/{n}",
                             f"{folder}/{n} dosyasını sil")} for n in matches] or None  # fmt: skip
            return self._clarify(turn, session, step, question), True
        path = f"{folder}/{matches[0]}"
        ctx.last_path = path
        out = turn.call("file_delete", {"path": path})
        if out.status == "confirm":
            return confirm_question("file_delete", {"path": path}, tr), True
        return describe("file_delete", out, tr, False, ctx, ""), False

    def _delete_all(self, turn: Turn, session: Session, folder: str, names: list[str],
                    tr: bool) -> tuple[str, bool]:  # fmt: skip
        """Clean a folder: one confirmation for every file in it."""
        if not names:
            return say(
                tr, f"{folder} has no files; nothing to clean.", f"{folder} zaten boş."
            ), False
        calls = [{"path": f"{folder}/{name}"} for name in names]
        out = turn.call("file_delete", calls[0])
        if out.status != "confirm" or session.pending is None:
            return describe("file_delete", out, tr, False, Context(), ""), True
        session.pending.batch = calls[1:]
        shown = ", ".join(names)
        return say(tr, f"Should I delete these {len(names)} file(s) in {folder}: {shown}? This "
                   "cannot be undone. Please confirm (yes/no).",
                   f"{folder} içindeki {len(names)} dosya silinsin mi: {shown}? Bu geri alınamaz. "
                   "Onaylıyor musunuz (evet/hayır)?"), True  # fmt: skip

    def _summarise(self, turn: Turn, intent: Intent, tr: bool, ctx: Context) -> tuple[str, bool]:
        """Read a file, write an extractive summary of it (its first sentences) elsewhere."""
        source = intent.detail.partition(":")[2]
        dest = str(intent.calls[0]["path"])
        read = turn.call("file_read", {"path": source})
        if not read.ok:
            return describe("file_read", read, tr, False, ctx, ""), True
        text = summary(read.text)
        written = turn.call("file_write", {"path": dest, "content": text})
        if written.ok:
            ctx.last_path, ctx.path_this_turn = dest, True
        return describe("file_write", written, tr, False, ctx, "") + "\n" + text.rstrip(), False


#: Research reads the top search result; empty pages are skipped for the next, this often.
MAX_RESEARCH_FETCHES = 3
#: Intent details that need nothing beyond the call itself (no expansion, no follow-up call).
_PLAIN_DETAILS = ("", "count", "assess", "advice")


#: Words by which a later step points at an earlier one's outcome (a chain, not a batch).
_BACK_REFERENCE = re.compile(
    r"\b(it|its|them|those|(the|that|this) (result|output|answer|number|value|listing|list|"
    r"content|contents|count|total|file|folder|text)|onu|bunu|sunu|onun|bunun|sonuc\w*|"
    r"cikti\w*)\b"
)
_DUMMY_IT = re.compile(r"\b(is|was|does) it\b")


def _parallel_ok(turn: Turn, intent: Intent) -> bool:
    spec = turn.spec(intent.tool)  # a tool that is not hosted runs (is refused) on its own
    return spec is not None and spec.read_only and not spec.confirm


_NO_OP = re.compile(
    r"(take|use|get|grab|al)\s+(that|this|the|bu|o)\s+(number|result|value|output|sayiyi|"
    r"sonucu|degeri)"
)
_INSIST = re.compile(
    r"\b(run it|do it|execute it|anyway|just do it|go ahead|are you sure|i insist|calistir|"
    r"yap|yine de|hadi)\b"
)
_NEVER_MIND = re.compile(r"\b(never ?mind|forget it|cancel|vazgec\w*|bosver|iptal)\b")


def _keep_fact(session: Session, note: str) -> None:
    """A note saved in this session stays in context too ("my X is Y" becomes a fact)."""
    m = re.match(r"\s*my ([a-z ]{2,30}?) is (.+?)\s*[.!]?$", note, re.I)
    if m:
        session.facts[m.group(1).lower()] = m.group(2)


def _anticipate(ctx: Context, intent: Intent | None) -> None:
    """Assume a planned step succeeds, so "it" and "the result" resolve in later steps."""
    if intent is None:
        return
    for args in intent.calls:
        path = args.get("path") or args.get("destination")
        if isinstance(path, str):
            ctx.last_path, ctx.path_this_turn = path, True
    if intent.tool in ("calculator", "shell", "file_read") or intent.kind == "math_local":
        ctx.last_value = ctx.last_value or "0"


def _same_target(intents: list[Intent]) -> bool:
    """Two neighbouring steps on one file ("create X and write Y into it") are one step."""
    return any(
        a.tool == b.tool
        and a.tool.startswith("file_")
        and bool(a.calls and b.calls)
        and a.calls[0].get("path") == b.calls[0].get("path")
        for a, b in itertools.pairwise(intents)
    )


def _files_in(listing: str) -> list[str]:
    """File names from a ``file_list`` result (folders end with ``/`` and are skipped): one
    entry a line after the folder's, or (the hosted tool's) ``folder: a (3 bytes), b/``."""
    lines = listing.splitlines()
    entries = lines[1:] if len(lines) > 1 else listing.partition(": ")[2].split(", ")
    return [e.rsplit(" (", 1)[0] for e in entries if e and not e.endswith("/") and e[0] != "("]
