"""The batch file (YAML): an output folder, an alpha, a lock, and the jobs, each checked with
its FILE:LINE before any job runs (see docs/nightly.md)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agenttest._util.convert import suggest
from agenttest.errors import InputError, Problem

from ._schema import DEFAULT_FORMATS, JOB_KEYS, TOP_KEYS
from ._schema import SUFFIX as SUFFIX  # _nightly names the report files with it

LOCK_NAME = ".agenttest-batch.lock"


@dataclass(frozen=True)
class Job:
    label: str
    batteries: tuple[str, ...]
    agent: str
    out: Path
    overlay: str | None = None
    k: int | None = None
    only: tuple[str, ...] = ()
    tiers: tuple[str, ...] = ()
    formats: tuple[str, ...] = DEFAULT_FORMATS
    gate: bool = False
    allow_temp: bool = False


@dataclass(frozen=True)
class Batch:
    path: Path
    jobs: tuple[Job, ...]
    lock: Path
    out: Path
    alpha: float = 0.05


def _strings(value: Any) -> tuple[str, ...] | None:
    if isinstance(value, str):
        return (value,)
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return tuple(value)
    return None


def load_batch(path: str | Path) -> Batch:
    """Parse and check a batch file; every problem is reported as ``FILE:LINE: message``."""
    from agenttest._util.located_yaml import load_located

    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise InputError(
            [Problem(str(path), 0, f"cannot read batch file: {exc.strerror}")]
        ) from None
    node, problems = load_located(text, str(path))
    if node is None:
        raise InputError(problems)
    base = path.parent
    top = node.value if isinstance(node.value, dict) else {}
    if not isinstance(node.value, dict):
        problems.append(Problem(str(path), node.line, "a batch file is a mapping with `jobs:`"))

    def problem(line: int, message: str) -> None:
        problems.append(Problem(str(path), line, message))

    default_out = top["out"].value if "out" in top else "reports"
    if not isinstance(default_out, str):
        problem(top["out"].line, "`out` must be a folder path")
        default_out = "reports"
    alpha = top["alpha"].value if "alpha" in top else 0.05
    if not isinstance(alpha, float | int) or not 0 < alpha < 1:
        problem(top["alpha"].line if "alpha" in top else node.line, "`alpha` must lie in (0, 1)")
        alpha = 0.05
    jobs_node = top.get("jobs")
    jobs: list[Job] = []
    if jobs_node is None or not isinstance(jobs_node.value, list) or not jobs_node.value:
        problem(jobs_node.line if jobs_node else node.line, "`jobs` must be a non-empty list")
    else:
        seen: set[str] = set()
        for item in jobs_node.value:
            job = _job(item, base, default_out, problem, seen)
            if job is not None:
                jobs.append(job)
    for key in top:
        if key not in TOP_KEYS:
            problem(
                node.key_lines.get(key, node.line), f"unknown key `{key}`{suggest(key, TOP_KEYS)}"
            )
    if problems:
        raise InputError(sorted(problems, key=lambda p: p.line))  # top to bottom
    lock = top["lock"].value if "lock" in top else None
    lock_path = base / lock if isinstance(lock, str) else base / default_out / LOCK_NAME
    return Batch(path, tuple(jobs), lock_path, base / default_out, float(alpha))


def _job(
    item: Any, base: Path, default_out: str, problem: Callable[[int, str], None], seen: set[str]
) -> Job | None:
    fields = item.value if isinstance(item.value, dict) else None
    if fields is None:
        problem(item.line, "each job is a mapping (label, batteries, agent, ...)")
        return None
    values = {k: v.plain() for k, v in fields.items()}
    line = fields.get("label", item).line
    ok = True
    for key in fields:
        if key not in JOB_KEYS:
            hint = suggest(key, JOB_KEYS)
            problem(item.key_lines.get(key, item.line), f"unknown job key `{key}`{hint}")
            ok = False
    label = values.get("label")
    if not isinstance(label, str) or not label.strip():
        problem(line, "every job needs a `label` (it finds the job's previous run)")
        ok = False
    elif label in seen:
        problem(line, f"two jobs share the label `{label}`")
        ok = False
    else:
        seen.add(label)
    batteries = _strings(values.get("batteries"))
    if not batteries:
        problem(fields.get("batteries", item).line, "`batteries` must be a path or a list of paths")
        ok = False
    agent = values.get("agent")
    if not isinstance(agent, str):
        problem(fields.get("agent", item).line, "`agent` must be `example` or an agent config file")
        ok = False
    k = values.get("k")
    if k is not None and (not isinstance(k, int) or isinstance(k, bool) or k < 1):
        problem(fields["k"].line, "`k` must be a whole number ≥ 1")
        ok = False
    formats = _strings(values.get("formats", list(DEFAULT_FORMATS)))
    if formats is None or any(f not in SUFFIX for f in formats):
        wrong = next((f for f in formats or () if f not in SUFFIX), "")
        hint = suggest(wrong, SUFFIX) if wrong else ""
        problem(fields.get("formats", item).line, f"`formats` may hold {', '.join(SUFFIX)}{hint}")
        ok = False
    overlay = values.get("overlay")
    if overlay is not None and not isinstance(overlay, str):
        problem(fields["overlay"].line, "`overlay` must be a file path")
        ok = False
    if not ok:
        return None
    assert isinstance(label, str) and isinstance(agent, str) and batteries and formats

    def resolve(p: str) -> str:
        return str(Path(p) if Path(p).is_absolute() else base / p)

    out = values.get("out", default_out)
    return Job(
        label=label,
        batteries=tuple(resolve(b) for b in batteries),
        agent=agent if agent == "example" else resolve(agent),
        out=Path(resolve(str(out))),
        overlay=resolve(overlay) if overlay else None,
        k=k,
        only=_strings(values.get("only")) or (),
        tiers=_strings(values.get("tiers")) or (),
        formats=formats,
        gate=bool(values.get("gate", False)),
        allow_temp=bool(values.get("allow_temp", False)),
    )
