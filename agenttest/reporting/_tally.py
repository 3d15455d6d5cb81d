"""What the aggregate's tables say once every run file is read.

:class:`~._aggregate.Aggregator` folds records into the tables held here (one
:class:`Slot` per (run, test, attempt number), the newest grade of each rater per slot,
the always-FAIL hits, each block's tier and k, the attempts ``--until-decided`` skipped);
:class:`AggregateTables` answers from them: which verdict counts for a slot under a choice
of rater (:meth:`~AggregateTables.decide`), the per-block counts
(:meth:`~AggregateTables.tally`), and what the plans promised that no file holds
(:meth:`~AggregateTables.missing`). Reading and answering are apart so that the hot loop of
the reader and the policy of which verdict counts can each be read on their own.
"""

from __future__ import annotations

from typing import Any

from agenttest.results import CriticalHit

from ._slots import (
    ERROR,
    FAIL,
    NOT_APPLICABLE,
    PASS,
    UNDECIDED,
    UNKNOWN,
    Code,
    Decision,
    GradeEntry,
    Missing,
    PlanInfo,
    RunFile,
    Slot,
    SlotKey,
    Tally,
)

_NUMBER = (int, float)


def _plan_runs(run: RunFile) -> list[str]:
    """The slot run ids a file's plan is run under: one, or one per agent of a --parity run
    (whose attempts are keyed ``run_id@label``)."""
    labels = [p.get("label") for p in run.meta.parity]  # open entries: {label, agent, ...}
    ids = [f"{run.run_id}@{label}" for label in labels if isinstance(label, str)]
    return ids or [run.run_id]


class AggregateTables:
    """The slot table and the tables beside it, filled by the reader; the queries on them."""

    def __init__(self) -> None:
        self.files: list[RunFile] = []
        self.slots: dict[SlotKey, Slot] = {}
        self.grades: dict[SlotKey, dict[str, GradeEntry]] = {}
        self.critical: dict[tuple[SlotKey, str], list[CriticalHit]] = {}
        self.tests: dict[str, list[Any]] = {}  # test_id -> [tier, k]
        # (run_id, test_id) -> attempts `--until-decided` skipped: not missing
        self.skipped: dict[tuple[str, str], set[int]] = {}

    def decided_early(self, test_id: str) -> bool:
        """Whether `--until-decided` skipped attempts of this block in any run file."""
        return any(t == test_id and runs for (_r, t), runs in self.skipped.items())

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
                    t.passing.append(key)
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
            elif code == UNDECIDED:
                t.undecided += 1
            elif code == NOT_APPLICABLE:
                t.not_applicable[cause or "unspecified"] += 1
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
            for item in run.meta.plan:
                test_id, runs = item.test_id, item.runs
                skipped = self.skipped.get((run.run_id, test_id), set())
                for run_id in _plan_runs(run):
                    have = present.get((run_id, test_id), set())
                    recorded = _within(have, runs)
                    passed_over = _within(skipped - have, runs) if skipped else 0
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

    def plan_info(self) -> dict[str, PlanInfo]:
        """Block details (tier, title, owasp) recorded in the run files' plans, if any."""
        info: dict[str, PlanInfo] = {}
        for run in self.files:
            for item in run.meta.plan:
                known = info.setdefault(item.test_id, PlanInfo())
                # a later file's plan says it again: what it says wins, what it leaves out stays
                known.tier = item.tier if item.tier is not None else known.tier
                known.title = item.title if item.title is not None else known.title
                known.owasp = item.owasp if item.owasp is not None else known.owasp
                known.runs = item.runs
        return info


def _within(numbers: set[int], runs: int) -> int:
    """How many of ``numbers`` are attempt numbers 1..runs. Nearly always all of them: then
    min and max decide it in C (the report counts every slot of a 100,000-attempt file here)."""
    if not numbers or (min(numbers) >= 1 and max(numbers) <= runs):
        return len(numbers)
    return sum(1 for n in numbers if 1 <= n <= runs)
