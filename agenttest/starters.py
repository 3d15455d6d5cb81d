"""Commented starting files for a user's own agent config, overlay, block and batch file
(`agenttest init KIND [PATH]`): each one loads as written, so a newcomer edits a file that
already works instead of one copied from a page (tests/test_newcomer_init.py checks each)."""

from __future__ import annotations

from pathlib import Path
from typing import Literal, get_args

from agenttest.errors import UsageError

Kind = Literal["agent", "overlay", "block", "batch"]
KINDS: tuple[str, ...] = get_args(Kind)

#: Where each file goes when no path is given (the current folder).
DEFAULT_NAMES: dict[str, str] = {
    "agent": "agent.yaml",
    "overlay": "overlay.yaml",
    "block": "MY-CALC-01.yaml",
    "batch": "nightly.yaml",
}

#: What to run next on each file, printed after it is written (`{path}` is the new file).
NEXT_STEP: dict[str, str] = {
    "agent": "agenttest run batteries --agent {path} --tier L1 --k 1",
    "overlay": "agenttest validate --strict batteries --overlay {path}",
    "block": "agenttest validate --strict {path}",
    "batch": "agenttest batch {path}",
}

_AGENT = """\
# An agent config: how agenttest reaches your agent (docs/agents.md; the JSON Schema for
# your editor: `agenttest schema --agent-config`). Only `model` and `base_url` are required;
# every other key below shows its default. More complete examples: examples/agents/.
name: my-agent
model: my-model                    # used in run file names and reports
base_url: http://127.0.0.1:8765
# native: the agenttest protocol (GET /health, POST /v1/turn, POST /v1/reset);
# openai: an OpenAI-compatible chat-completions server (add an `openai:` section with the
#   tool definitions to offer, and a workspace: examples/agents/openai.yaml has both);
# rest: any JSON API, mapped with a `rest:` request template and reply paths.
mode: native
stream: false                      # ask for streamed replies
timeouts:
  connect_s: 10                    # to open a connection
  answer_s: 1200                   # one turn may take this long (local models think)
readiness:
  timeout_s: 900                   # wait this long for "ready" before each attempt, then exit 3
  path: /health
busy_statuses: [409, 503, 429]     # replies that mean "busy, ask again later"
# workspace: ~/agent-workspace     # where fixtures go and file checks look
# log_file: ~/agent/audit.log      # lines appended during a turn become evidence
# headers:
#   Authorization: "Bearer ${MY_AGENT_TOKEN}"   # from the environment; never written to runs
# hosted_tools:                    # the harness serves the battery's tools over MCP here
#   url: http://127.0.0.1:8931/mcp                 (docs/hosted-tools.md)
"""

_OVERLAY = """\
# An overlay: the battery's tool roles and trace markers in your agent's own names
# (batteries/README.md; `agenttest schema` is the JSON Schema). Check it against the battery:
#   agenttest validate --strict batteries --overlay THIS_FILE
agent: my-agent
notes: >-
  What this agent is and anything a reader of its reports should know.
defaults:
  agent: my-agent
  # language: tr                   # send the turns' translations in this language
  # timezone: Europe/Istanbul      # the zone the agent states times in (clock checks)
  tools:                           # role -> your tool's name; an unmapped role names itself
    calculator: calculator
    file_read: read_file
    file_write: write_file
  # catalogue: [calculator, read_file, write_file]   # every tool it has: others are unknown
# blocks:                          # per-block fields, by block id, replacing the defaults
#   L1-CALC-01:
#     markers:
#       calculator_call: "CALL calculator"
"""

_BLOCK = """\
# A block: one capability test (batteries/README.md; `agenttest schema` is the JSON Schema,
# docs/grading.md lists the criterion types). Check it: agenttest validate --strict THIS_FILE
id: MY-CALC-01                     # unique; no spaces or slashes
tier: L1                           # L1-L4, HR, MT, SEC or EV
category: CALC
title: A product asked in words is worked out with the calculator
capability: >-
  The agent uses its calculator tool for a multiplication instead of guessing.
turns:                             # one prompt per turn, sent in order in one session
  - prompt: "What is 12 times 7?"
k: 5                               # attempts per run (report rates need several)
criteria:
  pass:                            # all must hold for PASS
    - {id: P1, tag: STATE, type: tool_called, tool: calculator, says: the calculator ran}
    - {id: P2, tag: STATE, type: response_number, value: 84, says: the answer is 84}
  fail:                            # any one makes the attempt FAIL
    - {id: F1, tag: STATE, type: response_wrong_number, value: 84, says: another number is given}
"""

_BATCH = """\
# A batch file: the jobs `agenttest batch THIS_FILE` runs in order, each reported and
# compared with its previous run (docs/nightly.md; `agenttest schema --batch` is the JSON
# Schema). Relative paths are read from this file's folder.
out: reports/nightly               # default folder of every job's runs and reports
alpha: 0.05                        # family-wise error rate of the comparisons
jobs:
  - label: core                    # unique: finds the job's previous run
    batteries: [batteries]         # block folders or files
    agent: example                 # or your agent config, e.g. agent.yaml
    # overlay: overlay.yaml
    tiers: [L1]                    # leave out to run every tier
    k: 1                           # attempts per block (leave out: each block's own k)
    formats: [md, html, json, junit]
    gate: false                    # true: a blocked decision makes the batch exit 1 or 5
"""

STARTERS: dict[str, str] = {"agent": _AGENT, "overlay": _OVERLAY, "block": _BLOCK, "batch": _BATCH}


def starter_text(kind: str) -> str:
    """The commented starting file of ``kind`` (one of :data:`KINDS`)."""
    if kind not in STARTERS:
        from agenttest._util.convert import suggest

        raise UsageError(
            f"`init` writes one of {', '.join(KINDS)}; got `{kind}`{suggest(kind, KINDS)}"
        )
    return STARTERS[kind]


def write_starter(kind: str, path: str | Path | None = None, *, force: bool = False) -> Path:
    """Write the starting file of ``kind`` to ``path`` (default :data:`DEFAULT_NAMES`) and
    return its path. An existing file is kept (:class:`UsageError`, exit 2) unless ``force``."""
    text = starter_text(kind)
    target = Path(path) if path is not None else Path(DEFAULT_NAMES[kind])
    if target.is_dir():
        target = target / DEFAULT_NAMES[kind]
    if target.exists() and not force:
        raise UsageError(f"{target} already exists; nothing written (use --force to replace it)")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"cannot write {target}: {exc.strerror}") from None
    return target
