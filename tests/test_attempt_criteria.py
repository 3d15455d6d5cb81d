"""The criteria about the attempt as a whole: status, latency_max, clock_delta and judge.

latency_max reads the attempt's own figure, then its turns' sum, then its clock; clock_delta
reads the time of day a reply states against the harness clock at the answer, in the agent's
zone (whole hours off with the zone unknown are undecided); judge asks the configured judge
about the turn, with its context and tool results, and leaves the criterion undecided when
the judge cannot decide or none is configured. The evidence is pinned whole.
"""

from __future__ import annotations

import pytest

from .fixtures.grading import attempt, block, check, crit, turn

# -- status ---------------------------------------------------------------------------------------


def test_status() -> None:
    c = crit("P", "status", value="completed")
    assert check(c, attempt(turn("x"))).holds is True
    assert check(c, attempt(turn("x"), status="timeout")).holds is False


# -- latency_max: the attempt's figure, its turns' sum, then its clock ----------------------------


def test_latency_max() -> None:
    c = crit("P", "latency_max", seconds=3)
    assert check(c, attempt(turn("hi"), latency_ms=1200)).holds is True
    assert check(c, attempt(turn("hi"), latency_ms=4800)).holds is False
    assert check(c, attempt(turn("hi"))).holds is None


# -- clock_delta: the stated time of day against the harness clock --------------------------------


def test_clock_delta() -> None:
    c = crit("P", "clock_delta", seconds=120)
    b = block(timezone="Europe/Istanbul")
    at = "2026-07-13T00:16:32+00:00"  # 03:16:32 in Istanbul
    assert check(c, attempt(turn("Saat şu an 03:17.", completed_at=at)), b).holds is True
    assert check(c, attempt(turn("Saat şu an 03:25.", completed_at=at)), b).holds is False
    assert check(c, attempt(turn("Saat şu an 03:17."))).holds is None  # no harness clock


# -- judge: the criterion's side of the judge protocol --------------------------------------------


class _Judge:
    name = "fake"

    def __init__(self, verdict: str) -> None:
        self.verdict = verdict
        self.requests: list[object] = []

    def judge(self, req: object) -> object:
        from agenttest.judges import JudgeResult

        self.requests.append(req)
        score = {"PASS": 0.9, "FAIL": 0.1, "ERROR": 0.0}[self.verdict]
        return JudgeResult(score=score, verdict=self.verdict, evidence="because", judge=self.name)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("verdict", "expected"), [("PASS", True), ("FAIL", False), ("ERROR", None)]
)
def test_judge_criterion_uses_the_judge_interface(verdict: str, expected: bool | None) -> None:
    c = crit("P", "judge", "JUDGE", rubric="grounded in the page?", reference="Swift 6 adds X")
    j = _Judge(verdict)
    res = check(c, attempt(turn("Swift 6 adds X", prompt="summarise")), judge=j)
    assert len(j.requests) == 1  # the judge really ran
    assert res.holds is expected


def test_judge_criterion_without_a_judge_is_ungraded_never_passed() -> None:
    c = crit("P", "judge", "JUDGE", rubric="grounded?")
    res = check(c, attempt(turn("anything")))
    assert res.holds is None and "no judge" in res.evidence["note"]
