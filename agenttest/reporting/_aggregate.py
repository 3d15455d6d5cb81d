"""Streaming aggregation of run files: one pass, memory bounded by the plan, not the file.

What is kept while reading (everything else of a record is dropped as soon as it is read):

* per (run, test, attempt number) "slot" one small :class:`Slot` — verdict code, latency, error
  cause, rater, and where the record sits in its file. This is needed because a later
  ``attempt`` record for the same slot supersedes an earlier one (``--retry-errors``), so
  the earlier verdict must be taken back out. Slots are bounded by blocks × k of the plan;
  retries, transcripts, traces and criteria never add memory;
* per graded slot the newest grade of each rater (a :class:`GradeEntry`: a verdict code
  and a timestamp);
* the ``critical`` lists of always-FAIL hits (rare, small);
* per test id its tier and k.

:meth:`Aggregator.tally` then turns slots into per-block counts for one choice of rater.
"""

from __future__ import annotations

import gc
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from agenttest.errors import UsageError
from agenttest.results import ReadNotes, iter_records, rater_kind
from agenttest.results import parse_timestamp as timestamp
from agenttest.verdicts import TrustCounts, counted_verdict, is_retry, is_stale

from ._sinks import AttemptSink, run_id_of
from ._slots import (
    ALWAYS,
    ERROR,
    FAIL,
    NEVER,
    OTHER,
    PASS,
    PER_RECORD,
    UNKNOWN,
    Code,
    Decision,
    GradeEntry,
    JudgeMode,
    Missing,
    RunFile,
    Slot,
    SlotKey,
    Tally,
    TokenCounts,
)

_VCODE = {"PASS": PASS, "FAIL": FAIL, "ERROR": ERROR}
_NUMBER = (int, float)


def judge_mode(name: str) -> JudgeMode:
    if rater_kind(name) != "judge":
        return NEVER
    return PER_RECORD if name.startswith("rules+") else ALWAYS


def judge_decided(rec: dict[str, Any]) -> bool:
    """Whether a ``rules+<judge>`` verdict hangs on its JUDGE criteria.

    It does when a JUDGE criterion was graded and no other criterion failed and no
    always-FAIL rule fired on its own: then the judge's answer decided PASS or FAIL.
    """
    judged = False
    for c in rec.get("criteria") or ():
        if not isinstance(c, dict):
            continue
        if c.get("tag") == "JUDGE":
            judged = judged or c.get("passed") is not None
        elif c.get("passed") is False:
            return False
    if any(isinstance(h, dict) and h.get("auto") for h in rec.get("critical") or ()):
        return False
    return judged


def _cause(rec: dict[str, Any]) -> str:
    return str(rec.get("error_cause") or rec.get("status") or "unspecified")


def _plan_runs(run: RunFile) -> list[str]:
    """The slot run ids a file's plan is run under: one, or one per agent of a --parity run
    (whose attempts are keyed ``run_id@label``)."""
    parity = run.meta.get("parity")
    labels = (
        [p.get("label") for p in parity if isinstance(p, dict)] if isinstance(parity, list) else []
    )
    ids = [f"{run.run_id}@{label}" for label in labels if isinstance(label, str)]
    return ids or [run.run_id]


class Aggregator:
    """Reads run files one record at a time; see the module docstring for what it keeps."""

    def __init__(
        self, *, allow_mixed: bool = False, strict: bool = False, sinks: Sequence[AttemptSink] = ()
    ) -> None:
        self.allow_mixed = allow_mixed
        self.sinks = tuple(sinks)  # sections fed in this pass (reporting._sinks)
        self.strict = strict  # agenttest-origin criteria count (agenttest.verdicts)
        self.trust = TrustCounts()
        self.files: list[RunFile] = []
        self.slots: dict[SlotKey, Slot] = {}
        self.grades: dict[SlotKey, dict[str, GradeEntry]] = {}
        self.critical: dict[tuple[SlotKey, str], list[dict[str, Any]]] = {}
        self.tests: dict[str, list[Any]] = {}  # test_id -> [tier, k]
        # (run_id, test_id) -> attempts `--until-decided` skipped: not missing
        self.skipped: dict[tuple[str, str], set[int]] = {}
        self.superseded = 0
        self.stale_grades = 0
        self.malformed = 0
        self.unknown_records = 0
        # token counts where the attempt reported them
        self.usage: dict[SlotKey, TokenCounts] = {}
        self._names: dict[str, str] = {}
        self._modes: dict[str, JudgeMode] = {}

    def _judged(self, rater: str, rec: dict[str, Any]) -> bool:
        mode = self._modes.get(rater)
        if mode is None:
            mode = self._modes[rater] = judge_mode(rater)
        return mode == ALWAYS or (mode == PER_RECORD and judge_decided(rec))

    def _intern(self, value: str) -> str:
        return self._names.setdefault(value, value)

    def add(self, path: str | Path) -> RunFile:
        """Fold one run file into the aggregate.

        The cyclic garbage collector is paused for the pass: reading makes no cycles (each
        record is freed by reference counting as soon as it is folded), but every few
        hundred records the collector walked the growing slot table. Measured on the
        100,000-attempt benchmark file, one process, five alternations: the report took
        1.13-1.26x (median) as long with the collector running."""
        paused = gc.isenabled()
        gc.disable()
        try:
            return self._fold(path)
        finally:
            if paused:
                gc.enable()

    def _fold(self, path: str | Path) -> RunFile:
        notes = ReadNotes(str(path))
        index = len(self.files)
        run: RunFile | None = None
        run_id = ""
        slots, tests, names, vcode = self.slots, self.tests, self._names, _VCODE
        modes, sinks, trust = self._modes, self.sinks, self.trust
        # A Slot built as the tuple it is: NamedTuple's own __new__ is a Python call
        # (timeit: 0.93 us against 0.26 us per slot).
        new_slot = tuple.__new__
        last: dict[str, Any] | None = None  # the newest attempt: its completed_at dates the run
        count = 0
        # The hot loop of every report: one dict lookup per field, no helper calls on the
        # common path (a PASS/FAIL attempt by a known rater for a known block).
        for ordinal, rec in enumerate(iter_records(path, notes)):
            get = rec.get
            kind = get("record_type")
            if kind == "attempt" and run is not None:
                test_id, number = get("test_id"), get("run")
                if test_id.__class__ is not str or number.__class__ is not int:
                    self.malformed += 1
                    continue
                test_id = names.setdefault(test_id, test_id)
                for sink in sinks:
                    sink.attempt(run_id, rec)
                verdict = counted_verdict(rec, True) if self.strict else get("verdict")
                code = UNKNOWN if verdict is None else vcode.get(verdict, OTHER)
                cause = self._intern(_cause(rec)) if code == ERROR else None
                rater = get("rater") or "unknown"
                if rater.__class__ is not str:
                    rater = str(rater)
                rater = names.setdefault(rater, rater)
                mode = modes.get(rater)
                if mode is None:
                    mode = modes[rater] = judge_mode(rater)
                judged = mode == ALWAYS or (mode == PER_RECORD and judge_decided(rec))
                agent = get("agent")  # a --parity run: each agent's attempts are their own
                key = (run_id if agent is None else f"{run_id}@{agent}", test_id, number)
                slot = new_slot(Slot, (code, get("latency_ms"), cause, rater, index, ordinal,
                                       hash(get("started_at")), judged))  # fmt: skip
                held = slots.setdefault(key, slot)
                if held is not slot:
                    if is_retry(held.started, slot.started):
                        self._supersede(key)
                    slots[key] = slot  # the same attempt again (a copy) keeps its grades
                trust.add(key, test_id, rec)
                if get("critical"):
                    self.critical[(key, rater)] = list(rec["critical"])
                if get("cost_tokens") is not None or get("usage"):
                    self._usage(key, rec, index)
                elif key in self.usage:  # a retry without counts replaces one with counts
                    del self.usage[key]
                if get("decided"):
                    self._decided(run_id, test_id, rec["decided"])
                meta = tests.get(test_id)
                k = get("k")
                if meta is None:
                    tests[test_id] = [get("tier"), k if isinstance(k, int) else 0]
                elif meta[0] is None or (k.__class__ is int and k > meta[1]):
                    meta[0] = meta[0] or get("tier")
                    meta[1] = max(meta[1], k if isinstance(k, int) else 0)
                count += 1
                last = rec
            elif kind == "grade" and run is not None:
                self._grade(rec, run_id, index, ordinal)
            elif kind == "run_meta" and run is None:
                run = self._open(path, rec, notes, index)
                run_id = run.run_id
            elif kind == "run_end" and run is not None:
                run.run_end = rec
            else:
                self.unknown_records += 1
        if run is None:  # iter_records guarantees a run_meta first; an empty file has none
            raise UsageError(f"{path}: empty run file (no run_meta record)")
        run.attempts = count
        run.last_completed_at = last.get("completed_at") if last else None
        return run

    def _usage(self, key: SlotKey, rec: dict[str, Any], index: int) -> None:
        def count(value: Any) -> int | None:
            return value if isinstance(value, int) and not isinstance(value, bool) else None

        raw = rec.get("usage")
        split: dict[str, Any] = raw if isinstance(raw, dict) else {}
        inp, out = count(split.get("input_tokens")), count(split.get("output_tokens"))
        total = count(rec.get("cost_tokens"))
        if total is None and inp is not None and out is not None:
            total = inp + out
        self.usage[key] = TokenCounts(total, inp, out, index)

    def _open(
        self, path: str | Path, meta: dict[str, Any], notes: ReadNotes, index: int
    ) -> RunFile:
        run_id = run_id_of(meta, index)
        run = RunFile(str(path), self._intern(run_id), meta, notes)
        if not self.allow_mixed:
            first = next((f for f in self.files if f.digest), None)
            if first is not None and run.digest is not None and run.digest != first.digest:
                raise UsageError(
                    f"run files come from different batteries: {first.path} ({first.digest}) "
                    f"and {path} ({run.digest}). Report them separately, compare them with "
                    "`agenttest compare`, or merge anyway with --allow-mixed."
                )
        self.files.append(run)
        plan = meta.get("plan")
        for item in plan if isinstance(plan, list) else []:
            if isinstance(item, dict) and isinstance(item.get("test_id"), str):
                # k stays 0 until an attempt says it: plan "runs" counts attempts, not k.
                self.tests.setdefault(item["test_id"], [item.get("tier"), 0])
        return run

    def _decided(self, run_id: str, test_id: str, note: Any) -> None:
        skipped = note.get("skipped") if isinstance(note, dict) else None
        if not isinstance(skipped, list):
            self.malformed += 1
            return
        runs = self.skipped.setdefault((run_id, test_id), set())
        runs.update(r for r in skipped if isinstance(r, int))

    def decided_early(self, test_id: str) -> bool:
        """Whether `--until-decided` skipped attempts of this block in any run file."""
        return any(t == test_id and runs for (_r, t), runs in self.skipped.items())

    def _supersede(self, key: SlotKey) -> None:
        """A later attempt replaces the slot's attempt, with its verdicts and grades."""
        self.superseded += 1
        old_rater = self.slots[key].rater
        self.critical.pop((key, old_rater), None)
        for rater in self.grades.pop(key, {}):
            self.critical.pop((key, rater), None)
            self.stale_grades += 1

    def _grade(self, rec: dict[str, Any], run_id: str, index: int, ordinal: int) -> None:
        test_id, number, rater = rec.get("test_id"), rec.get("run"), rec.get("rater")
        if not isinstance(test_id, str) or not isinstance(number, int) or not rater:
            self.malformed += 1
            return
        rater = self._intern(str(rater))
        verdict = counted_verdict(rec, self.strict)
        code = UNKNOWN if verdict is None else _VCODE.get(verdict, OTHER)
        key = (run_id, test_id, number)
        graded = rec.get("attempt_started_at")
        slot = self.slots.get(key)
        if graded is not None and slot is not None and is_stale(hash(graded), slot.started):
            self.stale_grades += 1  # it graded an attempt that a retry has replaced
            return
        per_rater = self.grades.setdefault(key, {})
        stamp = timestamp(rec.get("graded_at"))
        previous = per_rater.get(rater)
        # The newest grade of each rater wins: by graded_at, ties and unparsable times by
        # position in the file (files are append-only, so later is newer).
        if (
            previous is not None
            and stamp is not None
            and previous.graded_at is not None
            and stamp < previous.graded_at
        ):
            return
        cause = self._intern(_cause(rec)) if code == ERROR else None
        per_rater[rater] = GradeEntry(stamp, code, cause, index, ordinal, self._judged(rater, rec))
        hits = rec.get("critical")
        if hits:
            self.critical[(key, rater)] = list(hits)
        else:
            self.critical.pop((key, rater), None)

    # -- after reading -------------------------------------------------------------------

    def verdicts(self, key: SlotKey) -> dict[str, Code]:
        """Every rater's verdict code for one slot: the attempt's own rater, then grades
        (a later grade by the attempt's own rater replaces the attempt's verdict)."""
        slot = self.slots[key]
        out = {slot.rater: slot.code}
        for rater, entry in self.grades.get(key, {}).items():
            out[rater] = entry.code
        return out

    def orphan_grades(self) -> int:
        return sum(len(v) for k, v in self.grades.items() if k not in self.slots)

    def decide(
        self, key: SlotKey, slot: Slot, rater: str | None, uncalibrated: frozenset[str]
    ) -> Decision | None:
        """The verdict that counts for one slot under ``rater`` (default: the attempt's
        own); None when the chosen rater did not rate it."""
        code, cause, own, judged = slot.code, slot.cause, slot.rater, slot.judged
        decider = own if rater is None else rater
        graded = False
        per_rater = self.grades.get(key)
        entry = per_rater.get(decider) if per_rater else None
        if entry is not None:
            code, cause, graded, judged = entry.code, entry.cause, True, entry.judged
        elif decider != own:
            return None
        unsure = code in (PASS, FAIL) and judged and decider in uncalibrated
        return Decision(code, cause, decider, graded, unsure, unsure and rater is None)

    def tally(self, rater: str | None, uncalibrated: frozenset[str]) -> dict[str, Tally]:
        """Per-block counts, reading each slot's verdict from ``rater`` (default: its own).

        A verdict that an uncalibrated judge decided does not count (methodology §2.3:
        drop the judge) — it is tallied in ``excluded`` — unless that judge was chosen
        explicitly with ``rater``; then it counts and is tallied in ``uncalibrated`` so the
        report can refuse to call its rates published.
        """
        out: dict[str, Tally] = {}
        for test_id, (tier, k) in self.tests.items():
            out[test_id] = Tally(test_id, tier, k)
        critical, grades = self.critical, self.grades
        for key, slot in self.slots.items():
            t = out[key[1]]
            if rater is None and key not in grades:
                # The common case, as decide() has it without a Decision built per slot:
                # the attempt's own verdict, no grade record.
                code, cause, decider, graded = slot.code, slot.cause, slot.rater, False
                unsure = awaiting = code in (PASS, FAIL) and slot.judged and decider in uncalibrated
            else:
                d = self.decide(key, slot, rater, uncalibrated)
                if d is None:
                    t.unrated += 1
                    continue
                code, cause, decider, graded = d.code, d.cause, d.rater, d.graded
                unsure, awaiting = d.uncalibrated, d.awaiting
            latency = slot.latency_ms
            if code in (PASS, FAIL):
                if unsure:
                    t.uncalibrated_by.add(decider)
                    if awaiting:
                        t.excluded += 1
                        t.awaiting.append((key, decider, graded))
                        continue
                    t.uncalibrated += 1
                if code == PASS:
                    t.passed += 1
                else:
                    t.failed += 1
                    t.failing.append((key, decider, graded))
                if isinstance(latency, _NUMBER):  # a tuple: `int | float` is built per call
                    t.latencies.append(float(latency))
                if (key, decider) in critical:
                    t.critical.append((key, decider))
            elif code == ERROR:
                t.errors += 1
                t.causes[cause or "unspecified"] += 1
            elif code == UNKNOWN:
                t.unknown += 1
            else:
                t.other += 1
        return out

    def missing(self, examples: int = 10) -> Missing:
        """Attempts the plans of the run files promised that no file holds.

        Counted, not listed: a plan declares runs the file need not contain, so the work
        here is bounded by the records read (and the first ``examples`` gaps), never by
        what ``plan[].runs`` claims.
        """
        present: dict[tuple[str, str], set[int]] = {}
        for slot_run, slot_test, number in self.slots:
            present.setdefault((slot_run, slot_test), set()).add(number)
        out = Missing()
        for run in self.files:
            plan = run.meta.get("plan")
            for item in plan if isinstance(plan, list) else ():
                if not isinstance(item, dict):
                    continue
                test_id, runs = item.get("test_id"), item.get("runs")
                if not isinstance(test_id, str) or not isinstance(runs, int) or runs < 1:
                    continue
                skipped = self.skipped.get((run.run_id, test_id), set())
                for run_id in _plan_runs(run):
                    have = present.get((run_id, test_id), set())
                    recorded = sum(1 for n in have if 1 <= n <= runs)
                    passed_over = sum(1 for n in skipped if 1 <= n <= runs and n not in have)
                    out.planned[run.path] += runs
                    out.recorded[run.path] += recorded
                    out.skipped[run.path] += passed_over
                    out.planned_by_test[test_id] += runs
                    gaps = runs - recorded - passed_over
                    if gaps <= 0:
                        continue
                    done = have | skipped
                    out.by_test[test_id] += gaps
                    out.by_file[run.path] += gaps
                    number = 0
                    while len(out.examples) < examples and number < runs:
                        number += 1
                        if number not in done:
                            out.examples.append((run_id, test_id, number))
        return out

    def plan_info(self) -> dict[str, dict[str, Any]]:
        """Block details (tier, title, owasp) recorded in the run files' plans, if any."""
        info: dict[str, dict[str, Any]] = {}
        for run in self.files:
            plan = run.meta.get("plan")
            for item in plan if isinstance(plan, list) else []:
                if isinstance(item, dict) and isinstance(item.get("test_id"), str):
                    info.setdefault(item["test_id"], {}).update(
                        {k: v for k, v in item.items() if k in ("tier", "title", "owasp", "runs")}
                    )
        return info
