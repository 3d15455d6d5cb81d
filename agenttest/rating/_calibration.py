"""A judge's calibration per kind, from the people's ratings in the user's own run files.

Methodology §2.3: a judge counts once it agrees with human scoring of at least 20 samples.
Here a *sample* of kind K is an attempt whose verdict rests on the judge's decision of
K alone, rated by a person (``agenttest rate``):

* the newest judge record of the attempt (an attempt or ``grade`` record by a
  ``rules+JUDGE`` rater) holds JUDGE criteria of kind K only, each one the judge's
  procedure decided: PASS or FAIL, counted or held back for want of calibration ("the
  procedure said PASS"); an abstention is no sample;
* every other criterion held (or did not apply) and nothing always-FAIL was hit, so the
  person's verdict on the attempt is their verdict on what the judge decided.

The judge's label is FAIL if it failed any of the attempt's JUDGE criteria, else PASS;
the person's is their newest PASS/FAIL rating of the attempt. Per kind: how many samples,
how many the people rated PASS and FAIL, Cohen's κ with its bootstrap interval
(:class:`agenttest.judges.KindCalibration` decides whether that is enough).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from agenttest.judges import KindCalibration
from agenttest.results import (
    Attempt,
    CriterionResult,
    Grade,
    ReadNotes,
    RunMeta,
    SlotKey,
    iter_records,
    rater_kind,
    slot_key,
)
from agenttest.stats import cohen_kappa
from agenttest.verdicts import kappa_interval

from ._load import Unit, collect

KINDS = ("act", "covers", "consistent")
_NOTE = re.compile(r"judge ([\w.:@+-]+): (PASS|FAIL|ERROR|UNDECIDED)\b")
_KIND = re.compile(r"^(act|covers|consistent):")
_HELD = re.compile(r"the procedure said (PASS|FAIL)\b")


@dataclass(frozen=True)
class Sample:
    """One attempt whose verdict rests on a judge's decision of one kind."""

    key: SlotKey
    judge: str
    kind: str
    verdict: str  # the judge's: PASS or FAIL
    human: str | None  # the newest PASS/FAIL of a person, if any


def _decided(c: CriterionResult) -> tuple[str, str, str] | None:
    """(judge, kind, PASS|FAIL) of a JUDGE criterion the judge's procedure decided."""
    if c.tag != "JUDGE" or c.evidence is None:
        return None
    note = _NOTE.search(c.evidence.note or "")
    kind = _KIND.match(c.evidence.text or "")
    if note is None or kind is None:
        return None
    verdict = note.group(2)
    if verdict == "UNDECIDED":
        held = _HELD.search(c.evidence.text or "")
        verdict = held.group(1) if held else verdict
    return (note.group(1), kind.group(1), verdict) if verdict in ("PASS", "FAIL") else None


def attributed(record: Attempt | Grade, critical: bool) -> tuple[str, str, str] | None:
    """(judge, kind, the judge's attempt label) when the attempt's verdict rests on one
    judge's decision of one kind (see the module doc), else None."""
    judged: list[tuple[str, str, str]] = []
    for c in record.criteria:
        if c.tag == "JUDGE":
            decided = _decided(c)
            if decided is None:
                return None
            judged.append(decided)
        elif c.passed is not True and c.applies and not c.strict_only:
            return None
    if critical or not judged or len({(j, k) for j, k, _ in judged}) != 1:
        return None
    judge, kind, _ = judged[0]
    return judge, kind, "FAIL" if any(v == "FAIL" for _, _, v in judged) else "PASS"


def _human(unit: Unit | None) -> str | None:
    if unit is None:
        return None
    people = [r for name, r in unit.ratings.items() if rater_kind(name) == "human"]
    people = [r for r in people if r.verdict in ("PASS", "FAIL")]
    return max(people, key=lambda r: r.position).verdict if people else None


def samples(paths: Iterable[str | Path]) -> list[Sample]:
    """Every attempt of ``paths`` whose verdict rests on one judge's decision of one kind,
    with a person's rating when there is one."""
    paths = list(paths)
    newest: dict[SlotKey, tuple[Attempt | Grade, bool]] = {}
    for path in paths:
        run_id = str(path)
        for record in iter_records(Path(path), ReadNotes(str(path))):
            if isinstance(record, RunMeta):
                run_id = record.run_id or str(path)
            elif isinstance(record, Attempt | Grade) and "+" in (record.rater or ""):
                key = slot_key(run_id, record.agent, record.test_id, record.run)
                critical = bool(record.critical) if isinstance(record, Attempt) else False
                if isinstance(record, Grade) and key in newest:
                    critical = newest[key][1]  # a grade re-judges criteria, not the hits
                newest[key] = (record, critical)
    units = collect(paths).units
    out = []
    for key, (record, critical) in newest.items():
        found = attributed(record, critical)
        if found is not None:
            out.append(Sample(key, *found, human=_human(units.get(key))))
    return out


def calibration_of(
    found: Sequence[Sample], judge: str, sources: Sequence[str] = ()
) -> dict[str, KindCalibration]:
    """Per kind, ``judge``'s agreement with the people who rated its samples."""
    out: dict[str, KindCalibration] = {}
    for kind in KINDS:
        rated = [s for s in found if s.judge == judge and s.kind == kind and s.human]
        if not rated:
            continue
        keys = [s.key for s in rated]
        mine, theirs = [s.verdict for s in rated], [str(s.human) for s in rated]
        kappa = low = high = None
        if len(set(mine) | set(theirs)) > 1:
            kappa = cohen_kappa(mine, theirs)
            low, high = kappa_interval(keys, mine, theirs)
        out[kind] = KindCalibration(
            kind, len(rated), theirs.count("PASS"), theirs.count("FAIL"), kappa, low, high,
            tuple(sources),
        )  # fmt: skip
    return out


def judge_calibration(paths: Iterable[str | Path], judge: str) -> dict[str, KindCalibration]:
    """``judge``'s calibration per kind from the human ratings in ``paths``."""
    names = [str(p) for p in paths]
    return calibration_of(samples(names), judge, names)


def for_calibration(units: Sequence[Unit], found: Sequence[Sample], rater: str) -> list[Unit]:
    """The attempts that calibrate fastest, in showing order: samples this rater has not
    rated, kinds with the fewest rated samples first, alternating the judge's PASS and
    FAIL within a kind (both human verdicts are needed)."""
    by_key = {u.key: u for u in units}
    rated: dict[str, int] = {}
    todo: dict[str, dict[str, list[Sample]]] = {}
    for s in sorted(found, key=lambda s: s.key):
        unit = by_key.get(s.key)
        if unit is None:
            continue
        if s.human is not None:
            rated[s.kind] = rated.get(s.kind, 0) + 1
        if rater not in unit.ratings:
            todo.setdefault(s.kind, {}).setdefault(s.verdict, []).append(s)
    order: list[SlotKey] = []
    for kind in sorted(todo, key=lambda k: (rated.get(k, 0), KINDS.index(k))):
        passes, fails = todo[kind].get("PASS", []), todo[kind].get("FAIL", [])
        for i in range(max(len(passes), len(fails))):
            order += [s.key for s in (fails[i : i + 1] + passes[i : i + 1])]
    return [by_key[key] for key in dict.fromkeys(order)]
