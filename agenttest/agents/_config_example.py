"""``example:`` in an agent config: the bundled agent loop, started by the runner.

The config-file spelling of ``--agent example --model-url URL --model NAME
--example-args ... --replicas N --hosted-tools``, so a model under test is described in a
file that can be kept and reviewed like any other agent config::

    name: gemma-in-the-loop
    example:
      model_url: ${MODEL_URL:-http://127.0.0.1:8080/v1}
      model: gemma3-270m            # default: the first model the server lists
      args: --openai-max-steps 3    # example-agent options, split like a shell
      replicas: 1
      hosted_tools: true            # its tools from the harness's MCP host (issue 28)
    timeouts: {answer_s: 600}

The runner starts the agent(s) itself, so where it listens and which folder it writes are
not the file's to say: ``base_url``, ``workspace``, ``log_file``, ``replicas``, ``model``
and the other modes' keys are refused next to ``example:`` (``FILE:LINE``). The shared
keys (``name``, ``timeouts``, ``readiness``, ``stream``, ``prices``, ...) apply to the
started agent. A flag on the command line wins over its key (docs/agents.md).
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from agenttest._util.located_yaml import Located
from agenttest.errors import Problem

#: Keys that say where an agent runs: the runner decides that for the agent it starts.
RUNNER_KEYS = ("base_url", "model", "workspace", "log_file", "replicas", "rest", "openai")
#: Example-agent options the runner sets itself (where it listens, its sandbox, its brain).
RUNNER_OPTIONS = frozenset(
    {"--host", "--port", "--workspace", "--exit-with-parent", "--brain", "--openai-base-url",
     "--openai-model", "--hosted-tools"}
)  # fmt: skip
#: Stand-ins that let the shared keys convert before the agent exists.
PLACEHOLDER_URL = "http://127.0.0.1:1"


@dataclass(frozen=True)
class ExampleSpec:
    """What ``--agent example`` and its flags say, as config keys."""

    model_url: str | None = field(
        default=None,
        metadata={"doc": "as --model-url: an OpenAI-compatible server whose model drives it"},
    )
    model: str | None = field(
        default=None, metadata={"doc": "as --model; default: the server's first model"}
    )
    args: tuple[str, ...] = field(
        default=(), metadata={"doc": "as --example-args: example-agent options (shell-split)"}
    )
    replicas: int = field(default=1, metadata={"doc": "as --replicas: how many to start"})
    hosted_tools: bool = field(
        default=False,
        metadata={"doc": "as --hosted-tools: take every tool from the harness's MCP host"},
    )

    @property
    def options(self) -> tuple[str, ...]:
        """``args`` as separate options (each item is split like a shell would)."""
        return tuple(part for item in self.args for part in shlex.split(item))


def prepare(located: Located, filename: str) -> list[Problem]:
    """Before conversion: refuse the runner's keys next to ``example:`` and fill in the
    stand-ins for the required ``base_url`` and ``model`` (replaced once it runs)."""
    top: dict[str, Located] = located.value
    node = top.get("example")
    if node is None:
        return []
    problems = [
        Problem(
            filename,
            located.key_lines.get(key, top[key].line),
            f"`{key}` cannot be given with `example:`: the runner starts the bundled agent "
            "and sets it" + ("; name the model as `example.model`" if key == "model" else ""),
        )
        for key in RUNNER_KEYS
        if key in top
    ]
    mode = top.get("mode")
    if mode is not None and mode.value != "native":
        problems.append(
            Problem(filename, mode.line, "`example:` starts the bundled agent in `mode: native`")
        )
    top["base_url"] = Located(PLACEHOLDER_URL, node.line)
    top["model"] = Located("example-agent", node.line)
    return problems


def check(spec: ExampleSpec, node: Located | None, filename: str) -> list[Problem]:
    """After conversion: the URL, the model without a URL, the options, the count."""
    if node is None:
        return []
    lines = node.key_lines

    def at(key: str) -> int:
        return lines.get(key, node.line)

    problems: list[Problem] = []
    if spec.model_url is not None:
        url = urlsplit(spec.model_url)
        if url.scheme not in ("http", "https") or not url.hostname:
            problems.append(
                Problem(
                    filename,
                    at("model_url"),
                    f"`example.model_url` must be an http(s) URL, got `{spec.model_url}`",
                )
            )
    elif spec.model is not None:
        problems.append(
            Problem(
                filename,
                at("model"),
                "`example.model` names the model at `example.model_url`; give the URL too",
            )
        )
    if spec.replicas < 1:
        problems.append(Problem(filename, at("replicas"), "`example.replicas` must be >= 1"))
    try:
        options = spec.options
    except ValueError as exc:
        return [*problems, Problem(filename, at("args"), f"`example.args` cannot be split: {exc}")]
    problems += [Problem(filename, at("args"), m) for m in _option_problems(options)]
    return problems


def _option_problems(options: tuple[str, ...]) -> list[str]:
    from agenttest.example_agent import build_parser

    known = build_parser()._option_string_actions  # argparse's own table of option names
    out = []
    for option in options:
        name = option.split("=", 1)[0]
        if not name.startswith("--"):
            continue
        if name in RUNNER_OPTIONS:
            out.append(
                f"`example.args`: {name} is set by the runner"
                + (" (use `example.model_url` / `example.model`)" if "openai" in name else "")
                + (" (use `example.hosted_tools: true`)" if name == "--hosted-tools" else "")
            )
        elif name not in known:
            out.append(f"`example.args`: {name} is not an example-agent option")
    return out
