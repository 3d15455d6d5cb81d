"""Import methodology-v1 result files (the PheronAgent runs) as schema 2.0 run files.

A legacy record is ``{id, run, k | k_added, started_at, turns: [{prompt, response,
audit_excerpt}], [tester, run_type, audit_excerpt]}``. Each becomes one ``attempt``:

* the id is mapped to its block through the block aliases (``L1-HESAP-01`` →
  ``L1-CALC-01``, ``GUV-04`` → ``SEC-04``); the legacy id is kept as ``legacy_id``;
* the reply envelope is decoded into the response text, and the turn's own lines of the
  audit excerpt (:mod:`._pheron_log`) become its trace and its tool calls, with arguments
  and outcomes; ``toolsUsed`` names the log does not show are added with unknown outcome;
* a BUSY reply is ``ERROR``/``busy``; a turn whose reply and log are both empty was lost
  by the old harness (``ERROR``/``lost``); an empty reply while the log shows the agent at
  work is ``ERROR``/``no_reply`` (the old client gave up, methodology §10);
* the attempt is graded with the battery and overlay given; an id no block knows is kept
  with ``verdict: null`` and ``grade_note`` and counted as an unknown id.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from agenttest import __version__
from agenttest.blocks import Battery
from agenttest.errors import InputError, Problem, UsageError
from agenttest.grading import grade_attempt
from agenttest.results import (
    Attempt,
    BatteryInfo,
    PlanEntry,
    RunEnd,
    RunMeta,
    RunWriter,
    Source,
    ToolCall,
    TurnRecord,
    check_not_temp,
    unused_path,
)

from ._pheron_log import UBIDS, Entry, Segmenter, parse_envelope, tool_calls

if TYPE_CHECKING:
    from agenttest.judges import Judge

#: log lines written after the reply (not part of answering): energy and telemetry daemons,
#: cache purges
HOUSEKEEPING = re.compile(r"\[(?:EnergyTracker|TelemetryReporter)\]|VRAM Cache Purged")

FORMAT = "methodology-v1"
_NAME = re.compile(r"^run_(?P<model>.+?)_(?P<date>\d{8})_k(?P<k>\d+)(?:_(?P<label>.+))?$")
_TIER_PREFIX = {"L1": "L1", "L2": "L2", "L3": "L3", "L4": "L4", "HR": "HR", "MT": "MT",
                "SEC": "SEC", "GUV": "SEC", "GÜV": "SEC"}  # fmt: skip
VERDICT_KEYS = ("PASS", "FAIL", "ERROR", "UNDECIDED", "unknown")


@dataclass
class ImportResult:
    """Where the run file went and what it holds, per tier."""

    path: Path
    records: int = 0
    tiers: dict[str, Counter[str]] = field(default_factory=dict)
    error_causes: Counter[str] = field(default_factory=Counter)
    unknown_ids: Counter[str] = field(default_factory=Counter)

    def count(self, tier: str, key: str) -> None:
        self.tiers.setdefault(tier, Counter())[key] += 1

    def totals(self) -> Counter[str]:
        out: Counter[str] = Counter()
        for c in self.tiers.values():
            out.update(c)
        return out

    def table(self) -> list[str]:
        """Per-tier counts of PASS, FAIL, ERROR and unknown ids, as printed by the CLI."""
        lines = [f"{'tier':<6} {'PASS':>5} {'FAIL':>5} {'ERROR':>5} {'unknown':>7}"]
        order = ["L1", "L2", "L3", "L4", "HR", "MT", "SEC"]
        for tier in sorted(self.tiers, key=lambda t: (order.index(t) if t in order else 99, t)):
            c = self.tiers[tier]
            lines.append(
                f"{tier:<6} " + " ".join(f"{c[k]:>{max(5, len(k))}}" for k in VERDICT_KEYS)
            )
        t = self.totals()
        lines.append(f"{'all':<6} " + " ".join(f"{t[k]:>{max(5, len(k))}}" for k in VERDICT_KEYS))
        return lines


def parse_file_name(name: str) -> dict[str, Any]:
    """model, date, k and label from ``run_<model>_<YYYYMMDD>_k<k>_<label>.jsonl``."""
    m = _NAME.match(Path(name).stem)
    if not m:
        return {"model": "unknown", "date": None, "k": None, "label": None}
    return {"model": m["model"], "date": m["date"], "k": int(m["k"]), "label": m["label"]}


def read_legacy(path: Path) -> list[dict[str, Any]]:
    """The records of a legacy file; every malformed line is reported, nothing half-read."""
    records: list[dict[str, Any]] = []
    problems: list[Problem] = []
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError([Problem(str(path), 0, f"cannot read: {exc}")]) from None
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            rec = json.loads(line)
        except ValueError as exc:
            problems.append(Problem(str(path), n, f"not JSON: {exc}"))
            continue
        if not isinstance(rec, dict) or "id" not in rec or not isinstance(rec.get("turns"), list):
            hint = (
                " (already schema 2.0?)" if isinstance(rec, dict) and "record_type" in rec else ""
            )
            problems.append(
                Problem(str(path), n, f"not a {FORMAT} record: needs `id` and `turns`{hint}")
            )
            continue
        rec["_line"] = n
        records.append(rec)
    if problems:
        raise InputError(problems)
    if not records:
        raise InputError([Problem(str(path), 0, f"no {FORMAT} records")])
    return records


def tier_of(test_id: str) -> str:
    prefix = test_id.split("-", 1)[0].upper()
    return _TIER_PREFIX.get(prefix, "other")


def _iso(ts: str | None) -> str | None:
    if not ts:
        return None
    return ts.replace("Z", "+00:00") if ts.endswith("Z") else ts


def _seconds(a: str | None, b: str | None) -> int | None:
    try:
        return int(
            (datetime.fromisoformat(b or "") - datetime.fromisoformat(a or "")).total_seconds()
        )
    except ValueError:
        return None


def _fill_from_log(
    turn: TurnRecord, lines: list[Entry], how: str, env: Any, ubids: dict[int, str]
) -> None:
    """The turn's trace, tool calls and timing from its task's log lines."""
    if how:
        turn.trace_source = how
        turn.trace_partial = not how.startswith("task anchor")
    turn.trace = "\n".join(e.text for e in lines)
    calls = tool_calls(lines, ubids)
    seen = {c.name for c in calls}
    for name in env.tools_used:
        if name not in seen:
            calls.append(ToolCall(name=name, source="toolsUsed (not in the log excerpt)"))
            seen.add(name)
    turn.tool_calls = calls
    stamps = [e.ts for e in lines if e.ts]
    # the reply is the task's last own line; energy, telemetry and cache housekeeping the
    # agent logs after answering is not part of the latency
    replied = [e.ts for e in lines if e.ts and not HOUSEKEEPING.search(e.text)] or stamps
    if stamps:
        turn.started_at, turn.completed_at = _iso(stamps[0]), _iso(replied[-1])
        secs = _seconds(turn.started_at, turn.completed_at)
        turn.latency_ms = None if secs is None else secs * 1000


def convert_turn(
    raw: dict[str, Any], audit: str, seg: Segmenter, ubids: dict[int, str]
) -> tuple[TurnRecord, str | None, str | None]:
    """(the turn in schema 2 terms, error cause or None, error message)."""
    prompt = str(raw.get("prompt") or "")
    reply = raw.get("response") or ""
    env = parse_envelope(reply if isinstance(reply, str) else json.dumps(reply))
    turn = TurnRecord(
        prompt=prompt,
        response=env.text,
        envelope={
            "toolsUsed": list(env.tools_used),
            "category": env.category,
            "done": env.done,
            "error": env.error,
            "json": env.is_json,
        },
    )
    busy = bool(env.error and env.error.upper() == "BUSY")
    if busy:
        # the old client retried after a busy reply: the reply to the task is lost, but the
        # task's own audit (its prompt's anchor) may still be in the excerpt
        turn.response = None
        turn.reply_lost = True
        message = f"the agent answered BUSY: {env.text or ''}".strip()
        if not audit:
            return turn, "busy", message
        task, anchor = seg.segment(audit, prompt)
        if not anchor.startswith("task anchor"):
            return turn, "busy", message
        _fill_from_log(turn, task, anchor, env, ubids)
        return turn, "busy", message + "; the task's audit is graded without its reply"
    if not reply and not audit:
        return turn, "lost", "the old harness recorded neither a reply nor a log excerpt"
    lines: list[Entry] = []
    how = ""
    if audit:
        lines, how = seg.segment(audit, prompt)
    _fill_from_log(turn, lines, how, env, ubids)
    if not reply:
        return (
            turn,
            "no_reply",
            (
                "the old harness recorded an empty reply while the agent's log shows "
                "it at work (its client most likely timed out, methodology §10)"
            ),
        )
    return turn, None, None


def convert_record(
    rec: dict[str, Any], battery: Battery, seg: Segmenter, ubids: dict[int, str], source: str
) -> Attempt:
    legacy_id = str(rec["id"])
    block = battery.get(legacy_id)
    turns_raw = rec.get("turns") or []
    turns: list[TurnRecord] = []
    cause = message = None
    for i, raw in enumerate(turns_raw):
        audit = raw.get("audit_excerpt") or ""
        if not audit and i == len(turns_raw) - 1:
            audit = rec.get("audit_excerpt") or ""
        turn, t_cause, t_msg = convert_turn(raw, audit, seg, ubids)
        turns.append(turn)
        if t_cause and cause is None:
            cause, message = t_cause, f"turn {i + 1}: {t_msg}"
    k = rec.get("k") or rec.get("k_added")
    latencies = [t.latency_ms for t in turns if t.latency_ms is not None]
    # What the legacy record holds is written as found (a run that is no whole number, say);
    # the reader then skips that attempt and says why, as it would for any run file.
    return Attempt(
        test_id=block.id if block else legacy_id,
        legacy_id=legacy_id,
        tier=block.tier if block else tier_of(legacy_id),
        run=cast(int, rec.get("run")),
        k=k,
        started_at=rec.get("started_at"),
        completed_at=next((t.completed_at for t in reversed(turns) if t.completed_at), None),
        latency_ms=sum(latencies) if latencies and len(latencies) == len(turns) else None,
        latency_source="agent log timestamps (1 s resolution); the old harness recorded no latency",
        status="error" if cause else "completed",
        error=message,
        error_cause=cause,
        turns=turns,
        source=Source(file=source, line=rec.get("_line")),
        # the legacy runs used the methodology's host paths and pages, never our fixtures
        fixtures_applied=rec.get("fixtures_applied") is True,
        # the agent host's zone, from the overlay
        timezone=battery.overlay.defaults.timezone if battery.overlay else None,
        grade_note=(
            None if block else f"no block in the battery knows the id {legacy_id}; kept ungraded"
        ),
    )


def import_methodology_v1(
    path: str | Path,
    battery: Battery,
    *,
    out_dir: str | Path = "reports",
    allow_temp: bool = False,
    judge: Judge | None = None,
    overlay_path: str | None = None,
) -> ImportResult:
    """Convert and grade one legacy file into a new run file under ``out_dir``."""
    src = Path(path)
    out = Path(out_dir)
    check_not_temp(out, allow_temp)
    records = read_legacy(src)
    meta_name = parse_file_name(src.name)
    out.mkdir(parents=True, exist_ok=True)
    target = unused_path(
        out, src.name if src.name.startswith("run_") else f"run_imported_{src.stem}.jsonl"
    )
    digest = hashlib.sha256(src.read_bytes()).hexdigest()
    seg, ubids = Segmenter(), dict(UBIDS)
    attempts = [convert_record(rec, battery, seg, ubids, src.name) for rec in records]
    result = ImportResult(target, records=len(records))
    for a in attempts:
        block = battery.get(a.legacy_id or "")
        if block is None:
            result.count(a.tier or "", "unknown")
            result.unknown_ids[a.legacy_id or ""] += 1
            continue
        outcome = grade_attempt(block, a, judge=judge, battery_digest=battery.digest)
        outcome.write_into(a)
        if outcome.verdict == "ERROR" and a.status == "completed":
            a.error_cause = outcome.error_cause
            a.error = f"not gradable ({outcome.error_cause})"
        if outcome.verdict == "ERROR":
            result.error_causes[str(a.error_cause)] += 1
        result.count(block.tier, outcome.verdict)
    k_nominal = meta_name["k"] or max((int(a.k or 0) for a in attempts), default=0)
    plan: Counter[str] = Counter(a.test_id for a in attempts)
    testers = sorted({str(r["tester"]) for r in records if r.get("tester")})
    legacy_types = sorted({str(r["run_type"]) for r in records if r.get("run_type")})
    meta = RunMeta(
        run_id=f"import-{digest[:16]}",
        model=meta_name["model"],
        agent={
            "name": battery.overlay.agent if battery.overlay else "unknown",
            "source": f"imported from {FORMAT}",
            "timezone": battery.overlay.defaults.timezone if battery.overlay else None,
        },
        tester=", ".join(testers) or f"unknown ({FORMAT} import)",
        run_type="exploratory" if k_nominal < 5 else "published",
        k_nominal=k_nominal,
        started_at=records[0].get("started_at"),
        battery=BatteryInfo(
            paths=[str(Path(p).resolve()) for p in battery.paths],
            digest=battery.digest,
            overlay=str(Path(overlay_path).resolve()) if overlay_path else None,
            blocks=len(battery),
        ),
        harness={"agenttest": __version__, "original": FORMAT},
        plan=[PlanEntry(test_id=tid, runs=n) for tid, n in plan.items()],
        label=meta_name["label"],
        imported_from=f"{FORMAT} {src.name} sha256:{digest}",
        legacy={"run_type": legacy_types, "date": meta_name["date"], "records": len(records)},
    )
    status = Counter(str(a.status) for a in attempts)
    verdicts = Counter[str](a.verdict or "ungraded" for a in attempts)
    with RunWriter(target, create=True) as writer:
        writer.append(meta)
        for a in attempts:
            writer.append(a)
        writer.append(
            RunEnd(
                completed_at=datetime.now(UTC).isoformat(timespec="seconds"),
                counts={"status": dict(status), "verdict": dict(verdicts)},
                reason=f"imported from {FORMAT}",
            )
        )
    return result


def default_import_battery(root: Path = Path(".")) -> tuple[list[Path], Path]:
    """The battery and overlay an import uses when none are given (PheronAgent's)."""
    batteries = root / "batteries"
    overlay = batteries / "overlays" / "pheronagent.yaml"
    paths = [batteries]
    extra = batteries / "overlays" / "pheronagent-blocks"
    if extra.is_dir() and any(extra.rglob("*.yaml")):
        paths.append(extra)
    if not batteries.is_dir():
        raise UsageError(f"no battery at {batteries}; pass --battery PATH")
    if not overlay.is_file():
        raise UsageError(f"no overlay at {overlay}; pass --overlay FILE (the agent's tool names)")
    return paths, overlay
