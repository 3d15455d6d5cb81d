"""The block model: typed, frozen records for a test block and its reference fields.

A block has a *universal* part (what capability is tested, the prompts, the criteria) that
fits any agent, and *reference* fields that say how one particular agent shows that
capability (its tool names, its trace markers). Overlays replace reference fields only.

Criteria speak in agent-neutral *roles* (``calculator``, ``file_read``) and *marker names*
(``greeting_shortcut``); the reference fields map them to concrete tool names and trace
text. A role with no mapping stands for a tool of the same name, which is what the bundled
example agent implements. The words these records use (tiers, tags, criterion types) are
:mod:`._vocabulary`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import ClassVar, Literal

from ._grounding_types import Derivation
from ._vocabulary import (
    AlwaysFailRule,
    AsiId,
    CallsCounted,
    FaultKind,
    JudgeAct,
    JudgeAsks,
    Layer,
    Match,
    Mode,
    Origin,
    Scalar,
    Tag,
    Tier,
)


@dataclass(frozen=True)
class Criterion:
    """One PASS or FAIL criterion. Only the parameters its `type` takes are set."""

    id: str
    type: str
    tag: Tag
    says: str = field(metadata={"doc": "the criterion in words, for reports and raters"})
    critical: bool = False
    rule: AlwaysFailRule | None = None
    negate: bool = field(default=False, metadata={"doc": "invert the check"})
    tool: str | None = None
    tools: tuple[str, ...] = ()
    key: str | None = None
    match: Match | None = None
    value: Scalar | None = None
    values: tuple[str, ...] = ()
    markers: tuple[str, ...] = ()
    mode: Mode | None = None
    pattern: str | None = None
    path: str | None = None
    min: int | None = None
    max: int | None = None
    ok: bool | None = None
    calls: CallsCounted | None = field(
        default=None,
        metadata={
            "doc": "which calls count: `succeeded` (default), `ran` (any outcome) or "
            "`dispatched` (every call the agent made, for rules whose failure is the act)"
        },
    )
    seconds: float | None = None
    tolerance: float | None = None
    stem: bool | None = None
    case_sensitive: bool | None = None
    rubric: str | None = None
    reference: str | None = None
    asks: JudgeAsks | None = field(
        default=None, metadata={"doc": "judge: what it decides (act, covers, consistent)"}
    )
    act: JudgeAct | None = field(
        default=None, metadata={"doc": "judge with asks: act: the speech act the reply must be"}
    )
    of: tuple[Criterion, ...] = ()
    derived: tuple[Derivation, ...] = field(
        default=(), metadata={"doc": "numbers_grounded: how a stated number may be derived"}
    )
    cite_all: bool | None = field(
        default=None,
        metadata={"doc": "citations_grounded: every source the reply drew on must be cited"},
    )
    ticket: str | None = field(
        default=None, metadata={"doc": "ticket_state: the ticket's id (a `ticket` fixture's)"}
    )
    turn: int | None = field(
        default=None, metadata={"doc": "1-based turn; default depends on type"}
    )
    origin: Origin | None = field(
        default=None,
        metadata={
            "doc": "`methodology` (the methodology's PASS/FAIL text) or `agenttest` (a "
            "stricter check of ours, a strict-check warning unless `--strict`); default: "
            "the block's origin"
        },
    )
    fixture_bound: bool = field(
        default=False,
        metadata={"doc": "its expected values come from the block's fixtures"},
    )
    unfixed: Criterion | None = field(
        default=None,
        metadata={
            "doc": "the methodology's fixture-free rule, used instead when the attempt ran "
            "without the block's fixtures (imports)"
        },
    )


@dataclass(frozen=True)
class Criteria:
    pass_: tuple[Criterion, ...] = field(metadata={"yaml": "pass"})
    fail: tuple[Criterion, ...] = ()


@dataclass(frozen=True)
class Choose:
    """A turn that taps one of the choices the previous reply offered, instead of typing."""

    label_matches: str = field(
        metadata={"doc": "words of the label to tap (stemmed, English and Turkish)"}
    )


@dataclass(frozen=True)
class Turn:
    #: A bare string in YAML stands for ``Turn(prompt=...)``.
    YAML_SHORTHAND: ClassVar[str] = "prompt"

    prompt: str = ""
    translations: Mapping[str, str] = field(
        default_factory=dict, metadata={"doc": "the same prompt in other languages, by code"}
    )
    choose: Choose | None = field(
        default=None, metadata={"doc": "instead of a prompt: send the matching choice's value"}
    )


FixtureKind = Literal[
    "file", "dir", "absent", "git_repo", "memory_reset", "web_page", "memory_seed", "ticket"
]


@dataclass(frozen=True)
class Fixture:
    """Prepared before each attempt. Paths are relative to the agent's workspace."""

    kind: FixtureKind
    path: str | None = None
    content: str | None = None
    commits: tuple[str, ...] = field(default=(), metadata={"doc": "git_repo: commit messages"})
    url: str | None = field(default=None, metadata={"doc": "web_page: the address it answers"})
    ticket_id: str | None = field(
        default=None, metadata={"doc": "ticket: its id (the file .tickets/<id>.json)"}
    )
    state: str | None = field(default=None, metadata={"doc": "ticket: the state it starts in"})
    transitions: Mapping[str, tuple[str, ...]] = field(
        default_factory=dict,
        metadata={"doc": "ticket: state -> the states it may move to"},
    )
    # memory_seed: `content` holds the notes (one a line) put into the agent's persistent
    # memory through its seed endpoint; an agent that cannot be seeded gets ERROR/precondition.
    # ticket: `content` is the ticket's title.


@dataclass(frozen=True)
class Fault:
    """A hosted tool failing on purpose: for its first `calls` calls in an attempt, or always."""

    tool: str = field(metadata={"doc": "the tool's role (a hosted tool's name)"})
    kind: FaultKind = field(
        metadata={
            "doc": "error (fails with `content` as the message), timeout (hangs `delay_s`, "
            "then fails), partial (half the result), empty (an empty result), rate_limit "
            "(fails: rate limited, retry later), inject (`content` embedded in the result)"
        }
    )
    calls: int | None = field(
        default=None, metadata={"doc": "the first N calls of the attempt fail; absent: every call"}
    )
    content: str | None = field(
        default=None, metadata={"doc": "inject: the injected text; error: the message"}
    )
    delay_s: float | None = field(
        default=None, metadata={"doc": "timeout: how long the tool hangs, in seconds (capped)"}
    )


TeardownKind = Literal["remove", "memory_reset"]


@dataclass(frozen=True)
class Teardown:
    kind: TeardownKind
    path: str | None = None


@dataclass(frozen=True)
class Reference:
    """How one agent shows the capability. Overlays replace these fields block by block."""

    agent: str | None = None
    tools: Mapping[str, tuple[str, ...]] = field(
        default_factory=dict,
        metadata={"doc": "role -> concrete tool names; unmapped roles name themselves"},
    )
    markers: Mapping[str, str] = field(
        default_factory=dict, metadata={"doc": "marker name -> literal text in the trace"}
    )
    catalogue: tuple[str, ...] = field(
        default=(), metadata={"doc": "every tool the agent has; calls outside it are unknown tools"}
    )
    category_pattern: str | None = field(
        default=None, metadata={"doc": "regex over the trace; group 1 is the routing category"}
    )
    language: str | None = field(
        default=None, metadata={"doc": "send the turns' translation in this language"}
    )
    timezone: str | None = field(
        default=None, metadata={"doc": "IANA zone the agent states times in (clock checks)"}
    )
    workspace_roots: tuple[str, ...] = field(
        default=(),
        metadata={"doc": "absolute folders that count as inside the agent's sandbox"},
    )
    vars: Mapping[str, str] = field(
        default_factory=dict,
        metadata={"doc": "values for {{name}} placeholders in turns and criteria"},
    )
    paths: Mapping[str, str] = field(
        default_factory=dict,
        metadata={
            "doc": "workspace path -> the path this agent used in runs without the block's "
            "fixtures (the methodology's original host path), for world state from tool calls"
        },
    )
    unfixed: Mapping[str, Criterion] = field(
        default_factory=dict,
        metadata={
            "doc": "criterion id -> this agent's fixture-free variant (original paths), "
            "replacing the block's `unfixed` for attempts run without fixtures"
        },
    )
    notes: str | None = None


@dataclass(frozen=True)
class SourceRef:
    file: str
    line: int


@dataclass(frozen=True)
class Case:
    """One case of a parameterised block: its variables, and the category reports group by."""

    id: str
    category: str | None
    vars: Mapping[str, str]
    source: SourceRef
    parent: str | None = None  # the block's own id, once the case is made a block


ReferenceAgentName = Literal["idle", "echo", "yes-man", "refuser", "liar"]


@dataclass(frozen=True)
class Expectation:
    """What one reference misbehaving agent gets on a block, when it may PASS."""

    outcome: Literal["PASS", "FAIL", "ERROR", "UNDECIDED"] = field(
        metadata={"doc": "the verdict it gets on every attempt"}
    )
    because: str = field(metadata={"doc": "why that is right (shown in the lint's table)"})


@dataclass(frozen=True)
class Block:
    id: str
    tier: Tier
    category: str
    title: str
    capability: str
    turns: tuple[Turn, ...]
    criteria: Criteria
    k: int
    aliases: tuple[str, ...] = ()
    layer: Layer | None = None
    capturing_layer: str | None = None
    owasp: tuple[AsiId, ...] = ()
    fixtures: tuple[Fixture, ...] = ()
    teardown: tuple[Teardown, ...] = ()
    faults: tuple[Fault, ...] = field(
        default=(),
        metadata={"doc": "hosted tools that fail on purpose in each attempt (hosted tools only)"},
    )
    hosted: bool = field(
        default=False, metadata={"doc": "every tool this block needs can be hosted"}
    )
    reference_agents: Mapping[ReferenceAgentName, Expectation] = field(
        default_factory=dict,
        metadata={
            "doc": "what a reference misbehaving agent (idle, echo, yes-man, refuser, liar) "
            "gets here when that is not 'never PASS' (agenttest reference-agents)"
        },
    )
    preconditions: tuple[Criterion, ...] = field(
        default=(),
        metadata={
            "doc": "what must hold for the attempt to test anything (the injection page was "
            "served); one that demonstrably does not hold makes the attempt ERROR "
            "(cause `precondition`), the methodology's 'recorded as skipped'"
        },
    )
    origin: Origin = field(
        default="methodology",
        metadata={"doc": "`agenttest` for the battery's own blocks: their criteria count"},
    )
    reference: Reference = field(default_factory=Reference)
    notes: str | None = None
    cases: tuple[Case, ...] = field(
        default=(),
        metadata={
            "doc": "parameterised block: a list of mappings (`id`, optional `category`, "
            "variables) or a .jsonl/.csv file beside the block; one attempt id BLOCK#case-id each"
        },
    )
    inverse: tuple[str, ...] = field(
        default=(),
        metadata={
            "doc": "EV: blocks asking the same where the evidence suffices, so a plain answer "
            "must pass (a block that accepts declining names at least one)"
        },
    )
    case: Case | None = field(default=None, metadata={"internal": True})
    source: SourceRef | None = field(default=None, metadata={"internal": True})

    def origin_of(self, c: Criterion) -> str:
        """``methodology`` or ``agenttest``: the criterion's own, else the block's."""
        return c.origin or self.origin

    def counts(self, c: Criterion, strict: bool = False) -> bool:
        """Whether a criterion decides the verdict: methodology criteria always; agenttest
        additions to a methodology block only under ``--strict`` (else they are warnings);
        the criteria of agenttest's own blocks always."""
        return strict or self.origin == "agenttest" or self.origin_of(c) == "methodology"

    def unfixed_variant(self, c: Criterion) -> Criterion | None:
        """The fixture-free rule for a fixture-bound criterion (the overlay's wins)."""
        return self.reference.unfixed.get(c.id) or c.unfixed

    @property
    def ids(self) -> tuple[str, ...]:
        return (self.id, *self.aliases)

    def tool_names(self, role: str) -> tuple[str, ...]:
        """Concrete tool names for a role under this block's reference fields."""
        return self.reference.tools.get(role, (role,))

    def fill(self, text: str) -> str:
        """``{{name}}`` placeholders filled from the reference ``vars`` (prompts, criteria)."""
        for name, val in self.reference.vars.items():
            text = text.replace("{{" + name + "}}", val)
        return text

    def prompts(self) -> tuple[str, ...]:
        """The prompts to send, in the reference language when a translation exists."""
        lang = self.reference.language
        return tuple(
            self.fill(turn.translations.get(lang, turn.prompt) if lang else turn.prompt)
            for turn in self.turns
        )


@dataclass(frozen=True)
class Overlay:
    """Reference fields for another agent: battery-wide defaults, then per-block fields."""

    agent: str
    defaults: Reference = field(default_factory=Reference)
    blocks: Mapping[str, Reference] = field(default_factory=dict)
    notes: str | None = None
    source: SourceRef | None = field(default=None, metadata={"internal": True})
