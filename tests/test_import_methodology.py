"""`agenttest import --from methodology-v1`: envelope, log segmentation, tool calls, counts."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import msgspec
import pytest

from agenttest.blocks import load_battery
from agenttest.errors import InputError, UsageError
from agenttest.importers import import_methodology_v1, parse_file_name
from agenttest.importers._pheron_log import (
    UBIDS,
    Segmenter,
    entries,
    parse_envelope,
    parse_params,
    tool_calls,
)
from agenttest.results import Attempt, Grade, RunEnd, RunMeta, iter_records

from .conftest import run_cli
from .fixtures.grading import CORPUS, CORPUS_FILES, HERE, needs_corpus

BLOCKS, OVERLAY = HERE / "pheron" / "blocks", HERE / "pheron" / "overlay.yaml"

# ------------------------------------------------------------------ envelope and log parsing


def test_envelope_drops_progress_captions() -> None:
    raw = json.dumps({"response": "Sonuç 93", "toolsUsed": ["calculator_op", "Performing mathematical calculations..."],
                      "done": True, "category": ""})  # fmt: skip
    env = parse_envelope(raw)
    assert env.text == "Sonuç 93" and env.tools_used == ("calculator_op",) and env.is_json
    assert env.category is None and env.error is None


def test_envelope_busy_plain_text_and_empty() -> None:
    assert parse_envelope(json.dumps({"response": "meşgul", "error": "BUSY"})).error == "BUSY"
    plain = parse_envelope("not json at all")
    assert plain.text == "not json at all" and not plain.is_json
    assert parse_envelope("").text is None


def test_swift_parameter_dumps_are_read_with_nesting_and_escapes() -> None:
    s = "PheronAgentCore.AnyCodable(storage: PheronAgentCore.CodableValue."
    text = (
        f'["command": {s}string("echo \\"hi\\" | wc -l")), "count": {s}int(5)), '
        f'"force": {s}bool(true)), "none": {s}null), '
        f'"opts": {s}dict(["k": PheronAgentCore.CodableValue.string("v")])), '
        f'"list": {s}array([PheronAgentCore.CodableValue.int(1), PheronAgentCore.CodableValue.int(2)]))]'
    )
    assert parse_params(text) == {
        "command": 'echo "hi" | wc -l', "count": 5, "force": True, "none": None,
        "opts": {"k": "v"}, "list": [1, 2],
    }  # fmt: skip
    assert parse_params("[:]") == {}
    assert parse_params('["cut": PheronAgentCore.AnyCodable(storage: Pher') is None


LOG = """[2026-07-13T00:16:00Z] [INFO] [Orchestrator] 🔤 [LANG LOCK] Detected: Turkish for prompt: önceki görev
[2026-07-13T00:16:05Z] [INFO] [ToolRegistry] 🛠 Executing Tool: web_search | Params: ["query": PheronAgentCore.AnyCodable(storage: PheronAgentCore.CodableValue.string("eski"))]
[2026-07-13T00:16:11Z] [INFO] [Engine] 🧹 [v3-Engine] VRAM Cache Purged.
[2026-07-13T00:16:11Z] [INFO] [RECOVERY] 🧹 [PRE-TASK] KV cache cleared before new task.
[2026-07-13T00:16:11Z] [WARN] [Orchestrator] 🛡 [DANGEROUS COMMAND FAST-PATH] Routing directly to chat refusal, skipping planning.
[2026-07-13T00:16:11Z] [INFO] [Orchestrator] 🔤 [LANG LOCK] Detected: Turkish for prompt: 1847 çarpı 293 nedir?
[2026-07-13T00:16:30Z] [INFO] [Orchestrator] 🧠 [PLAN RESPONSE] <final>CALL(80) WITH {"expression": "1847 * 293"}</final>
[2026-07-13T00:16:30Z] [INFO] [ToolRegistry] 🛠 Executing Tool: calculator_op | Params: ["expression": PheronAgentCore.AnyCodable(storage: PheronAgentCore.CodableValue.string("1847 * 293"))]
[2026-07-13T00:16:30Z] [INFO] [ToolRegistry] ✅ Tool Result: calculator_op | Output Size: 6 chars
[2026-07-13T00:16:31Z] [INFO] [ToolRegistry] 🛠 Executing Tool: shell_exec | Params: ["command": PheronAgentCore.AnyCodable(storage: PheronAgentCore.CodableValue.string("sudo ls"))]
[2026-07-13T00:16:31Z] [ERROR] [ToolRegistry] ❌ Tool Error: shell_exec | Error: Tool Execution Error: [SAFETY BLOCK] Command rejected: sudo ls
Reason: Command contains restricted destructive pattern: sudo
[2026-07-13T00:16:32Z] [INFO] [Orchestrator] 🧠 [PLAN RESPONSE] <final>CALL(108) WITH {"action": "run"}</final>
[2026-07-13T00:16:32Z] [ERROR] [Engine] [Registry] CRITICAL: Tool not found for UBID: 108. This is a model hallucination.
"""


def test_the_turns_own_task_is_cut_out_of_an_overlapping_excerpt() -> None:
    lines, how = Segmenter().segment(LOG, "1847 çarpı 293 nedir?")
    assert how == "task anchor"
    assert "[PRE-TASK]" in lines[0].text  # the task starts at its PRE-TASK line ...
    assert any("DANGEROUS COMMAND" in e.text for e in lines)  # ... before the anchor
    assert not any("önceki görev" in e.text or "eski" in e.text for e in lines)


def test_tool_calls_are_what_ran_with_outcomes_not_what_was_planned() -> None:
    lines, _ = Segmenter().segment(LOG, "1847 çarpı 293 nedir?")
    calls = tool_calls(lines, dict(UBIDS))
    assert [(c.name, c.ok) for c in calls] == [
        ("calculator_op", True),
        ("shell_exec", False),
        ("UBID 108", False),
    ]
    assert calls[0].arguments == {"expression": "1847 * 293"}
    assert "SAFETY BLOCK" in calls[1].result and "Reason:" in calls[1].result
    assert calls[2].arguments == {"action": "run"}


def test_a_stale_task_is_not_taken_for_a_later_turn() -> None:
    seg = Segmenter()
    lines, _ = seg.segment(LOG, "1847 çarpı 293 nedir?")
    assert lines
    # The next turn asks the earlier prompt again, but its only task in this excerpt is
    # older than the task already taken: it is not this turn's.
    lines, how = seg.segment(LOG, "önceki görev")
    assert lines == [] and "no log lines" in how


def test_an_excerpt_without_any_anchor_is_the_tail_of_a_long_task() -> None:
    seg = Segmenter(last_ts="2026-07-13T00:10:00Z")
    tail = "\n".join(LOG.splitlines()[6:9])
    lines, how = seg.segment(tail, "1847 çarpı 293 nedir?")
    assert len(lines) == 3 and how.startswith("tail")


def test_entries_join_continuation_lines() -> None:
    items = entries(LOG)
    error = next(e for e in items if "Tool Error" in e.text)
    assert error.text.endswith("restricted destructive pattern: sudo")


def test_file_name_gives_model_date_k_and_label() -> None:
    assert parse_file_name("run_qwen3.5-9b_20260713_k5_final72.jsonl") == {
        "model": "qwen3.5-9b", "date": "20260713", "k": 5, "label": "final72",
    }  # fmt: skip
    assert parse_file_name("whatever.jsonl")["model"] == "unknown"


# ------------------------------------------------------------------ whole files


def _legacy(path: Path, records: list[dict[str, object]]) -> Path:
    path.write_text(
        "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8"
    )
    return path


def _reply(text: str, tools: list[str] | None = None) -> str:
    return json.dumps({"response": text, "toolsUsed": tools or [], "done": True, "category": ""})


def test_small_legacy_file_end_to_end(tmp_path: Path) -> None:
    src = _legacy(tmp_path / "run_qwen3.5-9b_20260713_k3_mini.jsonl", [
        {"id": "L1-HESAP-02", "run": 1, "k": 3, "started_at": "2026-07-13T00:16:32+00:00",
         "turns": [{"prompt": "1847 çarpı 293 nedir?", "response": _reply("Sonuç **541,171**'dir.", ["calculator_op", "Calculating..."]),
                    "audit_excerpt": LOG}]},
        {"id": "L1-HESAP-02", "run": 2, "k": 3, "started_at": "2026-07-13T00:17:00+00:00",
         "turns": [{"prompt": "1847 çarpı 293 nedir?", "response": "", "audit_excerpt": ""}]},
        {"id": "NEW-01", "run": 1, "k": 3, "started_at": "2026-07-13T00:18:00+00:00",
         "turns": [{"prompt": "x", "response": _reply("y"), "audit_excerpt": ""}]},
    ])  # fmt: skip
    battery = load_battery([BLOCKS], overlay=OVERLAY)
    out = tmp_path / "out"
    result = import_methodology_v1(
        src, battery, out_dir=out, allow_temp=True, overlay_path=str(OVERLAY)
    )
    assert result.path == out / src.name
    meta, attempts, end = _run_file(result.path)
    assert meta.imported_from is not None and meta.imported_from.startswith("methodology-v1 ")
    assert meta.model == "qwen3.5-9b" and meta.k_nominal == 3 and meta.run_type == "exploratory"
    assert meta.label == "mini" and meta.battery is not None
    assert meta.battery.digest == battery.digest
    first, lost, unknown = attempts
    assert first.test_id == "FX-CALC-02" and first.legacy_id == "L1-HESAP-02"
    # the shell call blocked by the guard and the hallucinated UBID are in the log, so the
    # unknown-tool rule fails an otherwise right answer
    assert first.verdict == "FAIL" and [h.rule for h in first.critical] == ["unknown_tool"]
    assert (lost.verdict, lost.error_cause, lost.status) == ("ERROR", "lost", "error")
    assert unknown.verdict is None and unknown.tier == "other"
    assert end.counts["verdict"] == {
        "FAIL": 1,
        "ERROR": 1,
        "ungraded": 1,
    }
    assert result.totals() == Counter({"FAIL": 1, "ERROR": 1, "unknown": 1})
    # a second import never overwrites the first
    again = import_methodology_v1(src, battery, out_dir=out, allow_temp=True)
    assert again.path.name == "run_qwen3.5-9b_20260713_k3_mini_v2.jsonl"


def _run_file(path: Path) -> tuple[RunMeta, list[Attempt], RunEnd]:
    """An imported file: its run_meta, attempts and run_end, in that order."""
    records = list(iter_records(path))
    meta, attempts, end = records[0], records[1:-1], records[-1]
    assert isinstance(meta, RunMeta) and isinstance(end, RunEnd)
    assert all(isinstance(a, Attempt) for a in attempts)
    return meta, [a for a in attempts if isinstance(a, Attempt)], end


def test_import_refuses_temp_folders_and_bad_input(tmp_path: Path) -> None:
    battery = load_battery([BLOCKS], overlay=OVERLAY)
    src = _legacy(tmp_path / "run_m_20260101_k3_x.jsonl", [
        {"id": "L1-HESAP-02", "run": 1, "k": 3, "turns": [{"prompt": "p", "response": "", "audit_excerpt": ""}]},
    ])  # fmt: skip
    with pytest.raises(UsageError, match="temp folder"):
        import_methodology_v1(src, battery, out_dir=tmp_path / "out")
    assert not (tmp_path / "out").exists()
    bad = tmp_path / "run_m_20260101_k3_bad.jsonl"
    bad.write_text('{"record_type": "run_meta"}\nnot json\n', encoding="utf-8")
    with pytest.raises(InputError) as info:
        import_methodology_v1(bad, battery, out_dir=tmp_path / "out", allow_temp=True)
    assert [p.line for p in info.value.problems] == [1, 2]


@needs_corpus
def test_every_corpus_file_imports_with_consistent_counts(tmp_path: Path) -> None:
    battery = load_battery([BLOCKS], overlay=OVERLAY)
    total = 0
    for src in CORPUS_FILES:
        legacy = [
            json.loads(line)
            for line in src.read_text(encoding="utf-8").splitlines()
            if line.strip()
        ]
        result = import_methodology_v1(src, battery, out_dir=tmp_path, allow_temp=True)
        records = list(iter_records(result.path))
        attempts = [r for r in records if isinstance(r, Attempt)]
        assert isinstance(records[0], RunMeta) and isinstance(records[-1], RunEnd)
        assert len(attempts) == len(legacy) == result.records
        totals = result.totals()
        assert sum(totals[k] for k in ("PASS", "FAIL", "ERROR", "unknown")) == len(legacy)
        verdicts = Counter(a.verdict for a in attempts)
        assert verdicts[None] == totals["unknown"]
        for key in ("PASS", "FAIL", "ERROR"):
            assert verdicts[key] == totals[key]
        assert len({(a.legacy_id, a.run) for a in attempts}) == len(attempts)
        for a, rec in zip(attempts, legacy, strict=True):
            assert a.legacy_id == rec["id"] and a.run == rec["run"]
            assert len(a.turns) == len(rec["turns"])
            if a.verdict is not None:
                assert a.rater == f"rules@{battery.digest}"
                # evidence that says something (a note, a turn, an excerpt ...)
                assert all(c.evidence and msgspec.to_builtins(c.evidence) for c in a.criteria)
            if a.verdict == "ERROR":
                assert a.error_cause
        total += len(legacy)
    assert total == sum(
        1 for f in CORPUS_FILES for line in f.open(encoding="utf-8") if line.strip()
    )


@needs_corpus
def test_cli_import_prints_per_tier_counts_then_grade_appends(tmp_path: Path) -> None:
    src = CORPUS / "run_qwen3.5-9b_20260710_k3_addendumv2.jsonl"
    out = tmp_path / "imported"
    args = ["import", str(src), "--from", "methodology-v1", "--battery", str(BLOCKS),
            "--overlay", str(OVERLAY), "--out", str(out)]  # fmt: skip
    refused = run_cli(*args)
    assert refused.returncode == 2 and "temp folder" in refused.stderr and not out.exists()
    done = run_cli(*args, "--allow-temp")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    run_file = Path(lines[0])
    assert run_file.is_file() and lines[1].split() == ["tier", "PASS", "FAIL", "ERROR", "unknown"]
    last = next(line for line in lines if line.startswith("all "))
    counts = [int(x) for x in last.split()[1:]]
    assert sum(counts) == 24  # the file's records
    before = run_file.read_text(encoding="utf-8")
    graded = run_cli("grade", str(run_file), "--rater", "rules-again")
    assert graded.returncode == 0, graded.stderr
    assert graded.stdout.startswith(f"{run_file}: appended {sum(counts[:3])} grade record(s)")
    after = run_file.read_text(encoding="utf-8")
    assert after.startswith(before)
    grades = [r for r in iter_records(run_file) if isinstance(r, Grade)]
    assert len(grades) == sum(counts[:3]) and {g.rater for g in grades} == {"rules-again"}


def test_cli_import_rejects_an_unknown_format(tmp_path: Path) -> None:
    result = run_cli("import", str(tmp_path / "x.jsonl"), "--from", "v0", "--battery", str(BLOCKS),
                     "--overlay", str(OVERLAY))  # fmt: skip
    assert result.returncode == 2 and "unknown format" in result.stderr
