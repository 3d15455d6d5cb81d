"""What every grader reads and writes (``agenttest.grading._context``).

The turns a grader sees (capped, the record left as it is), the names a tool goes by, the
turns a criterion is scoped to, the calls that count, the trace and log lines, whether the
fixtures were applied; and the evidence it writes, in words a person reads (no Python
artefacts), with its keys in one order and the turn one-based.
"""

from __future__ import annotations

from .fixtures.grading import attempt, call, check, crit, turn

# -- the evidence: its keys, and its values in words ----------------------------------------------


def test_evidence_reads_as_text_for_a_person() -> None:
    """No Python artefacts in evidence: repr's doubled backslashes, `None..2`, backticks."""
    a = attempt(turn("answer 42", [call("web_search", query="x")]))
    count = check(crit("P", "tool_count", max=2), a).evidence["note"]
    assert "wanted at most 2" in count and "None" not in count
    assert "wanted at least 1" in check(crit("P", "tool_called", tool="any"), a).evidence["note"]
    rx = check(crit("P", "response_regex", pattern=r"\d{3}"), a).evidence["note"]
    assert rx == "no match for “\\d{3}”", rx  # one backslash, as written in the block
    missing = check(crit("P", "tool_arg", tool="web_search", key="url"), a).evidence
    assert "`" not in str(missing) and "argument keys: query" in missing["note"]
    for c in (crit("P", "sentence_count", min=2), crit("P", "list_items", max=3)):
        note = check(c, a).evidence["note"]
        assert "None" not in note and ".." not in note, note
    # values not found are listed as text, not as a Python list
    text = check(crit("P", "response_contains", values=("7", "x\\d")), a).evidence["note"]
    assert text == "not found: “7”, “x\\d”", text
    traced = attempt(turn("answer 42", trace="ROUTE chat"))
    trace = check(crit("P", "trace_contains", values=("MARKER",)), traced).evidence["note"]
    assert trace == "missing: “MARKER”", trace
