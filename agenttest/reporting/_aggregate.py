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

The tables and what they answer once read (:meth:`~._tally.AggregateTables.tally` turns
slots into per-block counts for one choice of rater) are in :mod:`._tally`.
"""

from __future__ import annotations

import gc
from collections.abc import Sequence
from pathlib import Path

from agenttest.errors import UsageError
from agenttest.results import (
    Attempt,
    CriterionResult,
    CriticalHit,
    Decided,
    Grade,
    ReadNotes,
    RunEnd,
    RunMeta,
    iter_records,
    rater_kind,
    slot_key,
)
from agenttest.results import parse_timestamp as timestamp
from agenttest.verdicts import TrustCounts, counted_verdict, is_retry, is_stale

from ._sinks import AttemptSink, run_id_of
from ._slots import (
    ALWAYS,
    ERROR,
    FAIL,
    NEVER,
    NOT_APPLICABLE,
    OTHER,
    PASS,
    PER_RECORD,
    UNDECIDED,
    UNKNOWN,
    GradeEntry,
    JudgeMode,
    RunFile,
    Slot,
    SlotKey,
    TokenCounts,
)
from ._tally import AggregateTables

_VCODE = {
    "PASS": PASS,
    "FAIL": FAIL,
    "ERROR": ERROR,
    "UNDECIDED": UNDECIDED,
    "NOT_APPLICABLE": NOT_APPLICABLE,
}


def judge_mode(name: str) -> JudgeMode:
    if rater_kind(name) != "judge":
        return NEVER
    return PER_RECORD if name.startswith("rules+") else ALWAYS


def judge_decided(rec: Attempt | Grade) -> bool:
    """Whether a ``rules+<judge>`` verdict hangs on its JUDGE criteria.

    It does when a JUDGE criterion was graded and no other criterion failed and no
    always-FAIL rule fired on its own: then the judge's answer decided PASS or FAIL.
    (A record read from a file holds only criteria and hits; one built by hand may hold
    anything, and what is neither is passed over.)
    """
    judged = False
    for c in rec.criteria or ():
        if not isinstance(c, CriterionResult):
            continue
        if c.tag == "JUDGE":
            judged = judged or c.passed is not None
        elif c.passed is False:
            return False
    if any(isinstance(h, CriticalHit) and h.auto for h in rec.critical or ()):
        return False
    return judged


def _cause(rec: Attempt | Grade) -> str:
    """Why an ERROR is one (the counted verdict is ERROR only where the stored one is)."""
    return str(rec.error_cause or rec.status or "unspecified")


class RunIdConflict(UsageError):
    """Two run files name one run (``run_id``) but hold different attempts or verdicts for
    one slot: two runs under one id, or an edited copy. Exit 2."""

    def __init__(self, first: str, second: str, key: SlotKey, what: str) -> None:
        run_id, test_id, number = key  # (a --parity run's id carries @agent)
        super().__init__(
            f"{first} and {second} both say they are run {run_id} but hold different {what} "
            f"for {test_id} run {number}: they are not copies of one run, and the "
            "report would depend on the order they were given in. Report them one at a "
            "time, or compare them with `agenttest compare`."
        )


class Aggregator(AggregateTables):
    """Reads run files one record at a time into its tables; see the module docstring for
    what it keeps, :mod:`._tally` for what the tables answer."""

    def __init__(
        self, *, allow_mixed: bool = False, strict: bool = False, sinks: Sequence[AttemptSink] = ()
    ) -> None:
        super().__init__()
        self.allow_mixed = allow_mixed
        self.sinks = tuple(sinks)  # sections fed in this pass (reporting._sinks)
        self.strict = strict  # agenttest-origin criteria count (agenttest.verdicts)
        self.trust = TrustCounts()
        self.superseded = 0
        self.stale_grades = 0
        self.malformed = 0
        self.unknown_records = 0
        # token counts where the attempt reported them
        self.usage: dict[SlotKey, TokenCounts] = {}
        self._names: dict[str, str] = {}
        self._modes: dict[str, JudgeMode] = {}
        self._replaced: dict[SlotKey, set[int]] = {}  # started_at hashes retries replaced

    def _judged(self, rater: str, rec: Attempt | Grade) -> bool:
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
        modes, sinks, trust, usage = self._modes, self.sinks, self.trust, self.usage
        # A Slot built as the tuple it is: NamedTuple's own __new__ is a Python call
        # (timeit: 0.93 us against 0.26 us per slot).
        new_slot = tuple.__new__
        last: Attempt | None = None  # the newest attempt: its completed_at dates the run
        count = 0
        # The hot loop of every report: one attribute per field, no helper calls on the
        # common path (a PASS/FAIL attempt by a known rater for a known block). The reader
        # has checked each record against its type: a test id is a string, a run a count.
        for ordinal, rec in enumerate(iter_records(path, notes)):
            if isinstance(rec, Attempt) and run is not None:
                test_id = names.setdefault(rec.test_id, rec.test_id)
                key = slot_key(run_id, rec.agent, test_id, rec.run)
                for sink in sinks:
                    sink.attempt(key, rec)
                verdict = counted_verdict(rec, True) if self.strict else rec.verdict
                code = UNKNOWN if verdict is None else vcode.get(verdict, OTHER)
                cause = self._intern(_cause(rec)) if code == ERROR else None
                if code == NOT_APPLICABLE:  # its reason, as an ERROR's cause
                    cause = self._intern(rec.not_applicable or "unspecified")
                rater = rec.rater or "unknown"
                rater = names.setdefault(rater, rater)
                mode = modes.get(rater)
                if mode is None:
                    mode = modes[rater] = judge_mode(rater)
                judged = mode == ALWAYS or (mode == PER_RECORD and judge_decided(rec))
                slot = new_slot(Slot, (code, rec.latency_ms, cause, rater, index, ordinal,
                                       hash(rec.started_at), judged))  # fmt: skip
                held = slots.setdefault(key, slot)
                if held is not slot and not self._replace(key, held, slot, path):
                    count += 1
                    continue
                trust.add(key, test_id, rec)
                if rec.critical:
                    self.critical[(key, rater)] = list(rec.critical)
                if rec.cost_tokens is not None or rec.usage:
                    self._usage(key, rec, index)
                elif usage and key in usage:  # a retry without counts replaces one with counts
                    del usage[key]
                if rec.decided is not None:
                    self._decided(run_id, test_id, rec.decided)
                meta = tests.get(test_id)
                k = rec.k or 0  # a count (1 or more) when it is there
                if meta is None:
                    tests[test_id] = [rec.tier, k]
                elif meta[0] is None or k > meta[1]:
                    meta[0] = meta[0] or rec.tier
                    meta[1] = max(meta[1], k)
                count += 1
                last = rec
            elif isinstance(rec, Grade) and run is not None:
                self._grade(rec, run_id, index, ordinal)
            elif isinstance(rec, RunMeta) and run is None:
                run = self._open(path, rec, notes, index)
                run_id = run.run_id
            elif isinstance(rec, RunEnd) and run is not None:
                run.run_end = rec
            else:
                self.unknown_records += 1
        self.unknown_records += notes.unknown  # types the reader does not know (it skips them)
        if run is None:  # iter_records guarantees a run_meta first; an empty file has none
            raise UsageError(f"{path}: empty run file (no run_meta record)")
        run.attempts = count
        run.last_completed_at = last.completed_at if last else None
        return run

    def _usage(self, key: SlotKey, rec: Attempt, index: int) -> None:
        split = rec.usage or {}  # {"input_tokens", "output_tokens"}, either may be missing
        inp, out = split.get("input_tokens"), split.get("output_tokens")
        total = rec.cost_tokens
        if total is None and inp is not None and out is not None:
            total = inp + out
        self.usage[key] = TokenCounts(total, inp, out, index)

    def _open(self, path: str | Path, meta: RunMeta, notes: ReadNotes, index: int) -> RunFile:
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
        for item in meta.plan:
            # k stays 0 until an attempt says it: plan "runs" counts attempts, not k.
            self.tests.setdefault(item.test_id, [item.tier, 0])
        return run

    def _decided(self, run_id: str, test_id: str, note: Decided) -> None:
        # `skipped` is optional: a note without it passed nothing over (it is no malformed
        # record: `malformed` counts records the report skips)
        if note.skipped is None:
            return
        self.skipped.setdefault((run_id, test_id), set()).update(note.skipped)

    def _replace(self, key: SlotKey, held: Slot, slot: Slot, path: str | Path) -> bool:
        """A second attempt record for a slot: whether it takes the slot.

        In one file a record with another ``started_at`` is a retry and supersedes the
        slot; the same attempt again (a copy) takes it and keeps its grades. Two files of one
        run (one ``run_id``: a copy made mid-run and the run itself) may both hold an
        attempt: the same one, or one the other file's retry has since replaced (passed
        over). Any other pair is two runs under one id, and which one the report showed
        depended on the order of the arguments: refused (:class:`RunIdConflict`)."""
        if held.file != slot.file:
            if slot.started != held.started:
                if slot.started in self._replaced.get(key, ()):
                    return False  # a copy of an attempt that a retry replaced
                raise RunIdConflict(self.files[held.file].path, str(path), key, "attempts")
            if slot.code != held.code:
                raise RunIdConflict(self.files[held.file].path, str(path), key, "verdicts")
        if is_retry(held.started, slot.started):
            self._supersede(key)
        self.slots[key] = slot
        return True

    def _supersede(self, key: SlotKey) -> None:
        """A later attempt replaces the slot's attempt, with its verdicts and grades."""
        self.superseded += 1
        self._replaced.setdefault(key, set()).add(self.slots[key].started)
        old_rater = self.slots[key].rater
        self.critical.pop((key, old_rater), None)
        for rater in self.grades.pop(key, {}):
            self.critical.pop((key, rater), None)
            self.stale_grades += 1

    def _grade(self, rec: Grade, run_id: str, index: int, ordinal: int) -> None:
        test_id, number, rater = rec.test_id, rec.run, rec.rater
        if not rater:  # a grade by nobody cannot be counted
            self.malformed += 1
            return
        rater = self._intern(rater)
        verdict = counted_verdict(rec, self.strict)
        code = UNKNOWN if verdict is None else _VCODE.get(verdict, OTHER)
        # a grade of a --parity attempt names its agent, as the attempt does
        key = slot_key(run_id, rec.agent, test_id, number)
        graded = rec.attempt_started_at
        slot = self.slots.get(key)
        if graded is not None and slot is not None and is_stale(hash(graded), slot.started):
            self.stale_grades += 1  # it graded an attempt that a retry has replaced
            return
        per_rater = self.grades.setdefault(key, {})
        stamp = timestamp(rec.graded_at)
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
        if rec.critical:
            self.critical[(key, rater)] = list(rec.critical)
        else:
            self.critical.pop((key, rater), None)
