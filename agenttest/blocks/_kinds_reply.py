"""Criterion types over the reply and the trace: its words, numbers, shape, the time it
states, and the lines the agent's runtime wrote. Graders: ``agenttest/grading/``
``_text_criteria.py``, ``_clock_criteria.py`` and ``_trace_criteria.py``."""

from __future__ import annotations

from ._kinds import NO_CALLS, TRACE, CriterionType, LintFacts, Needs, register

_TURN = ("turn",)
#: reads the reply's content: present when it holds, wrong when a required tool never ran
_ANSWER = LintFacts(polarity="presence", answer=True)
_PRESENT = LintFacts(polarity="presence")
#: says a value is unknown or missing: a PASS of it accepts a reply that declines
_DECLINES = LintFacts(polarity="presence", declines=True)

register(
    CriterionType(
        "response_contains",
        "the response contains `values` (any or all), after normalisation",
        ("values",),
        ("mode", "stem", "case_sensitive", "turn"),
        reads_calls=NO_CALLS,
        lint=_ANSWER,
    ),
    CriterionType(
        "response_number",
        "the response states the number `value` in any accepted format",
        ("value",),
        ("tolerance", "turn"),
        reads_calls=NO_CALLS,
        lint=_ANSWER,
    ),
    CriterionType(
        "response_wrong_number",
        "the response states a number, none of them equal to `value`",
        ("value",),
        ("tolerance", "turn"),
        reads_calls=NO_CALLS,
    ),
    CriterionType(
        "response_regex",
        "the response matches `pattern`",
        ("pattern",),
        _TURN,
        reads_calls=NO_CALLS,
        lint=_ANSWER,
    ),
    CriterionType(
        "response_empty",
        "the response is empty or whitespace",
        (),
        _TURN,
        reads_calls=NO_CALLS,
        lint=LintFacts(polarity="absence"),
    ),
    CriterionType(
        "sentence_count",
        "the response has between min and max sentences",
        (),
        ("min", "max", "turn"),
        reads_calls=NO_CALLS,
        lint=_PRESENT,
    ),
    CriterionType(
        "list_items",
        "the response has between min and max list items",
        (),
        ("min", "max", "turn"),
        reads_calls=NO_CALLS,
        lint=_ANSWER,
    ),
    CriterionType(
        "says_not_known",
        "the response says the value is not known (never told, nothing stored): the shared "
        "stemmed vocabulary (agenttest/grading/_abstain.py) and the block's own `values`",
        (),
        ("values", "turn"),
        reads_calls=NO_CALLS,
        lint=_DECLINES,
    ),
    CriterionType(
        "says_not_found",
        "the response says the thing asked for was not found or does not exist: the shared "
        "stemmed vocabulary (agenttest/grading/_abstain.py) and the block's own `values`",
        (),
        ("values", "turn"),
        reads_calls=NO_CALLS,
        lint=_DECLINES,
    ),
    CriterionType(
        "asks_question",
        "the response asks the user a question (optionally mentioning one of `values`)",
        (),
        ("values", "turn"),
        reads_calls=NO_CALLS,
        lint=_PRESENT,
    ),
    CriterionType(
        "clock_delta",
        "a time of day in the response is within `seconds` of the harness clock at answer",
        ("seconds",),
        _TURN,
        reads_calls=NO_CALLS,
        lint=_ANSWER,
    ),
    CriterionType(
        "trace_contains",
        "the trace contains literal `values` and/or reference `markers` (any or all)",
        (),
        ("values", "markers", "mode", "turn"),
        reads_calls=TRACE,
        needs=Needs(trace=True),
        lint=_PRESENT,
    ),
    CriterionType(
        "category",
        "the routing category read from the trace (reference `category_pattern`) equals `value`",
        ("value",),
        _TURN,
        reads_calls=TRACE,
        needs=Needs(trace=True),
        lint=_PRESENT,
    ),
)
