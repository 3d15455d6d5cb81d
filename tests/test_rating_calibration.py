"""Calibration from the user's own ratings: a judge's verdicts on a kind count only after
people rated enough attempts resting on that kind (methodology §2.3), and say on what."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from agenttest.judges import KindCalibration
from agenttest.rating import rate_run
from agenttest.rating._calibration import Sample, calibration_of, for_calibration, samples
from agenttest.rating._load import Unit
from agenttest.results import Attempt, Grade, iter_records

from .conftest import ROOT, run_cli

NOT_CALIBRATED = (
    "judge not calibrated for `consistent`: rate 20 attempts (agenttest rate --for-calibration)"
)
GOOD = "Yes, it is a good day to go outside in Istanbul: partly cloudy and mild."
BAD = "No, better stay inside today in Istanbul: heavy rain is coming."


def _kind(rated: int, passes: int, kappa: float | None) -> KindCalibration:
    return KindCalibration("consistent", rated, passes, rated - passes, kappa, None, None)


@pytest.mark.parametrize(
    ("calibration", "why"),
    [
        (_kind(19, 10, 1.0), "rate 1 attempt(s)"),  # one short of the methodology's 20
        (_kind(20, 16, 1.0), "needs at least 5 PASS and 5 FAIL"),  # 4 FAIL: too few
        (_kind(40, 20, 0.59), "κ 0.59 is below 0.6"),
        (_kind(30, 15, None), "κ undefined is below 0.6"),  # an undefined κ never counts
    ],
)
def test_too_little_or_too_weak_agreement_does_not_calibrate(
    calibration: KindCalibration, why: str
) -> None:
    assert not calibration.calibrated
    assert why in calibration.evidence()
    assert calibration.evidence().startswith("judge not calibrated for `consistent`")


def test_twenty_rated_with_both_verdicts_and_kappa_over_the_bar_calibrates() -> None:
    found = KindCalibration("covers", 20, 5, 15, 0.6, 0.3, 0.9, ("runs/a.jsonl",))
    assert found.calibrated
    assert found.evidence() == (
        "judge calibrated for `covers` on 20 attempt(s) rated by a person (5 PASS, 15 FAIL), "
        "κ 0.60 [0.30, 0.90] in a.jsonl"
    )


def test_a_judge_that_always_passes_is_not_calibrated_by_people_who_fail_half() -> None:
    """The cheat: say PASS to everything. People's ten FAILs give κ 0: nothing counts."""
    found = [
        Sample(("r", "T", i), "openvino", "consistent", "PASS", "PASS" if i % 2 else "FAIL")
        for i in range(20)
    ]
    (kind,) = calibration_of(found, "openvino").values()
    assert kind.rated == 20 and kind.kappa == 0.0 and not kind.calibrated


def test_for_calibration_puts_the_least_rated_kind_first_and_alternates_verdicts() -> None:
    def unit(n: int) -> Unit:
        return Unit(("r", "T", n), "f", Attempt(test_id="T", run=n))

    units = [unit(n) for n in range(7)]
    units[6].ratings["human:bob"] = None  # type: ignore[assignment]  # rated by someone
    found = [
        Sample(("r", "T", 0), "openvino", "act", "PASS", None),
        Sample(("r", "T", 1), "openvino", "act", "FAIL", None),
        Sample(("r", "T", 2), "openvino", "consistent", "PASS", None),
        Sample(("r", "T", 3), "openvino", "consistent", "PASS", None),
        Sample(("r", "T", 4), "openvino", "consistent", "FAIL", None),
        Sample(("r", "T", 5), "openvino", "act", "PASS", None),
        Sample(("r", "T", 6), "openvino", "act", "PASS", "PASS"),  # act has one rated
    ]
    order = [u.run for u in for_calibration(units, found, "human:alice")]
    assert order == [4, 2, 3, 1, 0, 5, 6]


# -- the workflow, end to end: run, grade, rate (a scripted person), grade again ----------


def _run_example(out: Path, *extra: str) -> Path:
    result = run_cli(
        "run", str(ROOT / "batteries"), "--agent", "example", "--only", "L4-LIVE-03",
        "--k", "1", "--out", str(out), "--allow-temp", "--quiet", "--judge", "openvino", *extra,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    return Path(result.stdout.strip())


def _judge_criteria(path: Path) -> dict[int, tuple[bool | None, str]]:
    """Per run number, the newest record's P2 (the consistent JUDGE criterion)."""
    out: dict[int, tuple[bool | None, str]] = {}
    for record in iter_records(path):
        if isinstance(record, Attempt | Grade) and record.criteria:
            (p2,) = [c for c in record.criteria if c.id == "P2"]
            assert p2.evidence is not None
            out[record.run] = (p2.passed, str(p2.evidence.text))
    return out


def _more_attempts(path: Path, replies: list[str]) -> None:
    """Copies of the run's attempt with other replies (what other agents might answer)."""
    lines = path.read_text(encoding="utf-8").splitlines()
    attempt = next(json.loads(x) for x in lines if json.loads(x)["record_type"] == "attempt")
    end = lines.pop()  # run_end stays last
    for number, reply in enumerate(replies, start=2):
        copy = json.loads(json.dumps(attempt))
        copy["run"] = number
        copy["turns"][-1]["response"] = reply
        lines.append(json.dumps(copy, ensure_ascii=False))
    lines.append(end)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def _grade(path: Path) -> None:
    result = run_cli("grade", str(path), "--judge", "openvino")
    assert result.returncode == 0, result.stderr


def test_rating_twenty_attempts_makes_the_judges_verdicts_count(
    tmp_path: Path, judge_model: None
) -> None:
    path = _run_example(tmp_path / "out")
    passed, text = _judge_criteria(path)[1]
    assert passed is None and NOT_CALIBRATED in text  # no ratings: left to a person
    _more_attempts(path, [GOOD, BAD] * 12)
    _grade(path)
    before = _judge_criteria(path)
    assert all(p is None and NOT_CALIBRATED in t for p, t in before.values())
    assert sum("the procedure said FAIL" in t for _, t in before.values()) == 12

    screens = io.StringIO()

    def person() -> Iterator[str]:  # reads the reply on the screen, as a person would
        while True:
            reply = screens.getvalue().rsplit("Agent:", 1)[-1]
            yield "p" if "Yes," in reply else "f"

    done = rate_run(path, "alice", person(), screens, for_calibration=True)
    assert done.rated == 25 and done.remaining == 0
    shown = [piece.split("─")[0] for piece in screens.getvalue().split("Agent:")[1:3]]
    assert {"Yes," in s for s in shown} == {True, False}  # both verdicts first
    assert [s.human for s in samples([path])].count(None) == 0

    _grade(path)
    after = _judge_criteria(path)
    assert {n: p for n, (p, _) in after.items()} == {
        n: (n == 1 or n % 2 == 0) for n in range(1, 26)
    }
    counted = after[2][1]
    assert counted.startswith(
        "consistent: PASS counted, judge calibrated for `consistent` on 25 attempt(s) rated "
        "by a person (13 PASS, 12 FAIL), κ 1.00"
    ), counted

    # A new run takes the same people's ratings with `run --calibrate-from`: its judge's
    # verdicts count from the first attempt, on the same evidence as `grade`'s.
    again = _run_example(tmp_path / "again", "--calibrate-from", str(path))
    passed, text = _judge_criteria(again)[1]
    assert passed is True, text
    assert "PASS counted, judge calibrated for `consistent` on 25 attempt(s)" in text, text


@pytest.mark.parametrize(
    ("extra", "why"),
    [
        (("--calibrate-from", "no-such-run.jsonl"), "--calibrate-from no-such-run.jsonl: no such"),
        (("--judge", "none", "--calibrate-from", "{ratings}"), "--judge none takes no calibration"),
    ],
)
def test_run_calibrate_from_refuses_what_it_cannot_use(
    tmp_path: Path, extra: tuple[str, ...], why: str
) -> None:
    ratings = tmp_path / "rated.jsonl"
    ratings.write_text("", encoding="utf-8")
    out = tmp_path / "out"
    result = run_cli(
        "run", str(ROOT / "batteries"), "--agent", "example", "--only", "L4-LIVE-03",
        "--k", "1", "--out", str(out), "--allow-temp", "--quiet",
        *(e.format(ratings=ratings) for e in extra),
    )  # fmt: skip
    assert result.returncode == 2, result.stderr
    assert why in result.stderr
    assert not out.exists() or not any(out.iterdir())  # nothing written
