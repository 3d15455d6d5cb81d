"""Battery lint: what a block can get wrong while still being valid YAML for the loader.

The loader checks that a block is well-formed. The lint checks that it *grades what it
claims to grade*. Each rule below catches a way a block passes an agent for the wrong
reason or fails it for the wrong reason. ``agenttest validate --strict`` runs it; the
shipped battery is lint-clean.

Rules (the code in brackets starts each message):

``[precondition]``
    A PASS criterion that inspects what a tool produced must be preceded by a PASS
    criterion pinning that the tool ran. Otherwise a report cannot tell "the tool never
    ran" apart from "the tool ran and got it wrong" (the methodology reports tool choice
    and argument correctness separately), and an absent call can make a negated or
    lenient result check pass on nothing. A PASS criterion *depends on* tools when it is:

    * ``tool_arg``, ``tool_result`` -- on its ``tool``, negated or not (the grader negates
      them per call, "a call whose argument does not match", which still needs a call);

    or, when not negated:

    * ``command_executed`` -- on ``shell``;
    * ``file_exists`` / ``file_content`` on a path that no ``file``/``dir`` fixture
      creates, or whose expected content differs from the fixture's -- on any writer
      (``file_write``, ``file_patch``, ``file_move``, ``shell``): the agent made it;
    * a check on the answer's content (``response_number``, ``response_contains``,
      ``response_regex``, ``clock_delta``, ``list_items``) in a block whose FAIL
      criteria include ``no_tool_calls`` for that turn -- the block says an answer
      without a tool is wrong, so the answer is a tool's result -- on any tool;
    * ``any_of`` whose every branch depends on tools -- on the union of their tools.

    It is *pinned* by a PASS criterion that asserts a call happened: ``tool_called`` (not
    negated, ``min`` not 0), ``tool_count`` with a ``tool`` and ``min >= 1``, each tool of
    ``tool_order``, or an ``any_of`` whose every branch pins (it pins the union). A pin
    covers a dependency when every tool it pins is acceptable to the dependency (any
    tool, for an answer check) and their turns do not differ.

``[fail-criteria]``
    A block without FAIL criteria cannot name what failure looks like; the methodology
    gives every block both.

``[inverse]``
    (1) A PASS check that something is gone (``file_absent``, negated ``file_exists``)
    needs a PASS check that something else survived (``file_exists``/``file_content`` on
    another path): deleting everything would otherwise pass. (2) When the PASS STATE
    criteria contain absence checks (``no_tool_calls``, ``tool_not_called``,
    ``file_absent``, ``response_empty``, a negated presence check other than the per-call
    ``tool_arg``/``tool_result``) they also need one
    presence check; absence alone passes vacuously on an agent that did nothing at all.

``[judge]``
    A ``judge`` criterion needs a rubric of at least 20 characters and the JUDGE tag; a
    JUDGE-tagged ``any_of`` needs at least one judge branch and a rubric on every JUDGE
    branch. An ``asks: covers`` judge needs a reference that lists at least two items
    (sentences, list lines or an enumeration), and at least ``min`` of them.

``[fixture-bound]``
    A criterion expecting text that only the block's fixtures put there (a fixture file's
    name, a line of its content, a commit message) must be ``fixture_bound: true``
    (``_lint_fixtures.py``), so attempts run without the fixtures are not graded on it.

``[pattern]``
    An author regex (``pattern``, a ``regex`` match ``value``, ``category_pattern``) must
    not backtrack catastrophically (see :mod:`._lint_patterns`).

``[hosted]``
    A block that says ``hosted: true`` needs only tools the harness hosts
    (:mod:`._lint_hosted` says which roles a block needs).

``[premise]``
    A negative premise must be proven by a fixture, never assumed from the machine the
    test happens to run on: (1) capability/title/notes text claiming a file is missing
    needs an ``absent`` fixture, claiming a fact was never given needs a
    ``memory_reset`` fixture, claiming the material does not cover something needs a
    fixture holding the material; (2) every workspace path a prompt names needs a
    fixture for that exact path (``file``, ``dir`` or ``absent``); (3) every path a
    ``file_*`` criterion inspects needs such a fixture too, so a leftover from an earlier
    block or attempt cannot decide it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from agenttest.errors import Problem

from ._kinds import kind_of
from ._lint_evidence import lint_evidence
from ._lint_facts import (
    _ANY,
    _CORPUS_PREMISE,
    _FILE_PREMISE,
    _HOST_SUFFIXES,
    _MEMORY_PREMISE,
    _PATH_TOKEN,
    _URL,
    MIN_RUBRIC_CHARS,
    WRITE_ROLES,
    _covers,
    _dependency,
    _fail_no_tool_turns,
    _file_polarity,
    _fixture_paths,
    _Lines,
    _norm,
    _pins,
    _polarity,
    _walk,
)
from ._lint_fixtures import rule_fixture_bound
from ._lint_hosted import rule_hosted
from ._lint_patterns import rule_pattern
from ._loader import Battery
from ._model import Block, Criterion

__all__ = ["MIN_RUBRIC_CHARS", "WRITE_ROLES", "lint_battery", "lint_block"]

# --------------------------------------------------------------------------- rules


def _rule_precondition(block: Block, lines: _Lines) -> list[Problem]:
    file = block.source.file if block.source else "?"
    passes = block.criteria.pass_
    no_tool_turns = _fail_no_tool_turns(block)
    pins = [p for c in passes for p in _pins(c)]
    out = []
    for c in passes:
        dep = _dependency(block, c, no_tool_turns)
        if dep is None or any(_covers(p, dep) for p in pins):
            continue
        if _ANY in dep.tools:
            what, fix = "any tool", "`{type: tool_called, tool: <role>}`"
        else:
            names = sorted(dep.tools)
            what = " or ".join(f"`{n}`" for n in names)
            fix = (
                f"`{{type: tool_called, tool: {names[0]}}}`"
                if len(names) == 1
                else ("a `tool_called` (or an `any_of` of them) on one of these roles")
            )
        turn = f" in turn {dep.turn}" if dep.turn is not None else ""
        out.append(
            Problem(
                file,
                lines.criterion(block, "pass", c.id),
                f"[precondition] PASS criterion `{c.id}` ({c.type}) checks what {what} "
                f"produced{turn}, but no PASS criterion pins that it ran; add {fix}",
            )
        )
    return out


def _rule_fail_criteria(block: Block, lines: _Lines) -> list[Problem]:
    if block.criteria.fail:
        return []
    file = block.source.file if block.source else "?"
    return [
        Problem(
            file,
            lines.key(block, "criteria"),
            f"[fail-criteria] block `{block.id}` has no FAIL criteria; say what failure "
            "looks like (the wrong tool, an invented answer, a forbidden action)",
        )
    ]


def _rule_inverse(block: Block, lines: _Lines) -> list[Problem]:
    file = block.source.file if block.source else "?"
    out = []
    file_checks: list[tuple[Criterion, str, str]] = []
    for c in block.criteria.pass_:
        for sub in (c, *c.of) if kind_of(c).nested and not c.negate else (c,):
            found = _file_polarity(sub)
            if found is not None:
                file_checks.append((c, *found))
    present_paths = {path for _, kind, path in file_checks if kind == "presence"}
    reported: set[str] = set()
    for c, kind, path in file_checks:
        if kind != "absence" or c.id in reported:
            continue
        if not present_paths - {path}:
            reported.add(c.id)
            out.append(
                Problem(
                    file,
                    lines.criterion(block, "pass", c.id),
                    f"[inverse] PASS criterion `{c.id}` checks that `{path}` is gone but no "
                    "PASS criterion checks that another file survived; add a `file_exists` "
                    "or `file_content` on a fixture file that must still be there",
                )
            )
    state = [c for c in block.criteria.pass_ if c.tag == "STATE"]
    kinds = [_polarity(c) for c in state]
    if "absence" in kinds and "presence" not in kinds:
        first = next(c for c, k in zip(state, kinds, strict=True) if k == "absence")
        out.append(
            Problem(
                file,
                lines.criterion(block, "pass", first.id),
                f"[inverse] the PASS STATE criteria of `{block.id}` only check that "
                f"something did not happen (`{first.id}`: {first.type}); add one that checks "
                "something did (an answer came back, a trace line, a file that survived)",
            )
        )
    return out


def _rule_judge(block: Block, lines: _Lines) -> list[Problem]:
    """The problems each criterion's entry finds in it (a judge's rubric and reference)."""
    file = block.source.file if block.source else "?"
    out = []
    for group, top in (("pass", block.criteria.pass_), ("fail", block.criteria.fail)):
        for c in top:
            line = lines.criterion(block, group, c.id)
            for sub in _walk([c]):
                problem = kind_of(sub).lint.problem
                message = problem(block, sub) if problem is not None else None
                if message:
                    out.append(Problem(file, line, f"[judge] criterion `{sub.id}` {message}"))
    return out


def _prompt_paths(block: Block) -> set[str]:
    found: set[str] = set()
    texts = [t.prompt for t in block.turns] + [
        v for t in block.turns for v in t.translations.values()
    ]
    for text in texts:
        for raw in re.split(r"[\s,;:()\[\]{}<>\"`]+", _URL.sub(" ", text)):
            word = raw.strip("'’‘“”.!?")
            if not word or word.startswith(("/", "~", "$")) or "{{" in word:
                continue
            # Turkish suffixes after an apostrophe: notes/x.txt'yi -> notes/x.txt
            word = re.split(r"['’]", word, maxsplit=1)[0]
            if not _PATH_TOKEN.match(word):
                continue
            last = word.rsplit("/", 1)[-1]
            if "/" not in word and last.rsplit(".", 1)[-1].lower() in _HOST_SUFFIXES:
                continue
            found.add(_norm(word))
    return found


def _rule_premise(block: Block, lines: _Lines) -> list[Problem]:
    file = block.source.file if block.source else "?"
    out = []
    text = " ".join(x for x in (block.capability, block.title, block.notes or "") if x)
    kinds = {fx.kind for fx in block.fixtures}
    checks = (
        (_FILE_PREMISE, {"absent"}, "a file is missing", "an `absent` fixture for it"),
        (_MEMORY_PREMISE, {"memory_reset"}, "a fact was never given", "a `memory_reset` fixture"),
        (
            _CORPUS_PREMISE,
            {"file", "dir", "web_page", "git_repo"},
            "the material does not cover something",
            "a fixture holding that material",
        ),
    )
    for pattern, needed, claim, fix in checks:
        m = pattern.search(text)
        if m and not kinds & needed:
            out.append(
                Problem(
                    file,
                    lines.key(
                        block,
                        "notes" if block.notes and m.group(0) in block.notes else "capability",
                    ),
                    f"[premise] `{block.id}` says {claim} (\u201c{m.group(0)}\u201d) but no "
                    f"fixture proves it; add {fix}",
                )
            )
    known = _fixture_paths(block, ("file", "dir", "absent"))
    for path in sorted(_prompt_paths(block) - known):
        out.append(
            Problem(
                file,
                lines.key(block, "turns"),
                f"[premise] a prompt of `{block.id}` names `{path}` but no fixture sets its "
                "state; add a `file` fixture (it exists) or an `absent` fixture (it does not)",
            )
        )
    for group, top in (("pass", block.criteria.pass_), ("fail", block.criteria.fail)):
        for c in top:
            for sub in _walk([c]):
                is_file_check = kind_of(sub).lint.file_check is not None
                if is_file_check and sub.path and _norm(sub.path) not in known:
                    out.append(
                        Problem(
                            file,
                            lines.criterion(block, group, c.id),
                            f"[premise] criterion `{sub.id}` inspects `{sub.path}` but no "
                            "fixture sets its state before the attempt, so a leftover "
                            "could decide it; add a `file` or `absent` fixture",
                        )
                    )
    return out


_RULES = (
    _rule_precondition,
    _rule_fail_criteria,
    _rule_inverse,
    _rule_judge,
    _rule_premise,
    rule_fixture_bound,
    rule_pattern,
    rule_hosted,
)


def lint_block(block: Block, lines: _Lines | None = None) -> list[Problem]:
    """Every lint problem of one block, in rule order."""
    lines = lines or _Lines()
    out: list[Problem] = []
    for rule in _RULES:
        out.extend(rule(block, lines))
    return out


def lint_battery(battery: Battery | Iterable[Block]) -> list[Problem]:
    """Every lint problem of every block, as ``FILE:LINE: [rule] message`` problems."""
    lines = _Lines()
    out: list[Problem] = []
    blocks = list(battery)
    for block in blocks:
        out.extend(lint_block(block, lines))
    out.extend(lint_evidence(blocks, lines))
    # The cases of a parameterised block share one file: report each problem once.
    return sorted(set(out), key=lambda p: (p.file, p.line, p.message))
