"""Agent config files: defaults, FILE:LINE errors, ${ENV} secrets, redaction, shipped examples."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from agenttest.agents import load_agent_config, parse_agent_config
from agenttest.cli._progress import RichProgress, make_progress
from agenttest.errors import InputError
from agenttest.results import Attempt
from agenttest.runner import Estimate, LineProgress, Progress

from .conftest import ROOT, run_cli

EXAMPLES = ROOT / "examples" / "agents"
_H = "model: m\nbase_url: http://h:1\n"  # what a hosted_tools case follows


def parse(text: str, tmp_path: Path) -> object:
    return parse_agent_config(text, str(tmp_path / "agent.yaml"), tmp_path)


def test_minimal_config_gets_documented_defaults(tmp_path: Path) -> None:
    cfg = parse_agent_config(
        "model: m\nbase_url: http://127.0.0.1:1\nworkspace: ws\n", "a.yaml", tmp_path
    )
    assert cfg.mode == "native" and cfg.display_name == "m"
    assert cfg.timeouts.answer_s == 1200 and cfg.timeouts.connect_s == 10
    assert cfg.readiness.timeout_s == 900 and cfg.readiness.path == "/health"
    assert cfg.readiness.ready_field == "status" and cfg.readiness.ready == ("ready",)
    assert cfg.busy_statuses == (409, 503, 429)
    assert cfg.workspace == str(tmp_path / "ws")  # relative to the config file


def test_mode_changes_readiness_defaults_unless_given(tmp_path: Path) -> None:
    openai = parse_agent_config(
        "model: m\nbase_url: http://h:1\nmode: openai\n", "a.yaml", tmp_path
    )
    assert openai.readiness.path == "/v1/models" and openai.readiness.ready_field is None
    given = parse_agent_config(
        "model: m\nbase_url: http://h:1\nmode: openai\nreadiness: {path: /ok, field: s}\n",
        "a.yaml",
        tmp_path,
    )
    assert given.readiness.path == "/ok" and given.readiness.ready_field == "s"


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        ("model: m\nbase_url: http://h:1\ntimeout: {answer_s: 5}\n", 3, "unknown key `timeout`"),
        ("model: m\nbase_url: http://h:1\ntimeouts:\n  answr_s: 5\n", 4, "did you mean `answer_s`"),
        ("model: m\nbase_url: http://h:1\nmode: grpc\n", 3, "must be one of native, rest, openai"),
        ("model: m\nbase_url: ftp://h\n", 2, "must be an http(s) URL"),
        ("base_url: http://h:1\n", 1, "missing required key `model`"),
        ("model: m\nbase_url: http://h:1\nbusy_statuses: [200]\n", 3, "not 4xx/5xx"),
        ("model: m\nbase_url: http://h:1\nrest: {}\n", 3, "`rest` needs `mode: rest`"),
        (
            "model: m\nbase_url: http://h:1\nmode: rest\nrest:\n  request: {body: '{{ nope }}'}\n",
            4,
            "not a valid template",
        ),
        ("model: m\nbase_url: http://h:1\nheaders: {A: '${AGENTTEST_UNSET_X}'}\n", 3, "not set"),
        (_H + "hosted_tools: {url: 'https://127.0.0.1:1/mcp'}\n", 3, "must be an http:// URL"),
        (_H + "hosted_tools: {url: 'http://10.0.0.2:8931/mcp'}\n", 3, "must be on loopback"),
        (_H + "hosted_tools: {url: 'http://[::1]:8931/mcp'}\n", 3, "must be on loopback"),
        (_H + "hosted_tools: {url: 'http://127.0.0.2:8931/mcp'}\n", 3, "must be on loopback"),
        (_H + "hosted_tools: {url: 'http://127.0.0.1/mcp'}\n", 3, "needs a port"),
        (_H + "hosted_tools: {url: 'http://127.0.0.1:8931'}\n", 3, "needs a path"),
        (_H + "hosted_tools: {url: 'http://127.0.0.1:8931/?a=1'}\n", 3, "needs a path"),
        (_H + "hosted_tools: {url: 'http://127.0.0.1:99999/mcp'}\n", 3, "is not a URL"),
        (_H + "hosted_tools: {}\n", 3, "missing required key `url`"),
        (_H + "hosted_tools: {url: 'http://127.0.0.1:1/m', port: 3}\n", 3, "unknown key `port`"),
        (
            _H + "replicas:\n  - {base_url: 'http://a:1'}\n  - {base_url: 'http://b:1'}\n"
            "hosted_tools: {url: 'http://127.0.0.1:8931/mcp'}\n",
            3,
            "two replicas share one hosted_tools url",
        ),
        (
            _H
            + "replicas:\n  - {base_url: 'http://a:1', hosted_tools: {url: 'http://127.0.0.1:5/m'}}\n"
            "  - {base_url: 'http://b:1', hosted_tools: {url: 'http://127.0.0.1:5/m'}}\n",
            3,
            "two replicas share one hosted_tools url",
        ),
        (
            _H
            + "replicas:\n  - {base_url: 'http://a:1', hosted_tools: {url: 'http://127.0.0.1:5/m'}}\n"
            "  - {base_url: 'http://b:1'}\n",
            3,
            "some replicas have hosted_tools and some not",
        ),
    ],
)
def test_problems_name_file_and_line(tmp_path: Path, text: str, line: int, message: str) -> None:
    with pytest.raises(InputError) as info:
        parse(text, tmp_path)
    lines = info.value.lines()
    assert any(f"agent.yaml:{line}:" in item and message in item for item in lines), lines


def test_cli_reports_a_bad_config_with_exit_2(tmp_path: Path) -> None:
    config = tmp_path / "agent.yaml"
    config.write_text("model: m\nbase_url: http://h:1\nanswer_s: 3\n", encoding="utf-8")
    result = run_cli(
        "run",
        str(ROOT / "batteries"),
        "--agent",
        str(config),
        "--allow-temp",
        "--out",
        str(tmp_path),
    )
    assert result.returncode == 2
    assert f"{config}:3: unknown key `answer_s`" in result.stderr
    assert "Traceback" not in result.stderr


def test_secrets_are_substituted_and_redacted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AGENTTEST_T_TOKEN", "tok-123")
    cfg = parse_agent_config(
        "model: m\nbase_url: http://user:pw@h:1/?key=abc\n"
        "headers: {Authorization: 'Bearer ${AGENTTEST_T_TOKEN}'}\n"
        "mode: openai\nopenai: {params: {api_key: zzz, temperature: 0}}\n",
        "a.yaml",
        tmp_path,
    )
    assert cfg.headers["Authorization"] == "Bearer tok-123"
    shown = cfg.redacted()
    text = repr(shown)
    for secret in ("tok-123", "pw@", "abc", "zzz"):
        assert secret not in text
    assert shown["headers"] == {"Authorization": "***"}
    assert shown["openai"]["params"] == {"api_key": "***", "temperature": 0}
    assert shown["base_url"] == "http://user:***@h:1/?key=***"


def test_shipped_examples_load(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("MY_AGENT_TOKEN", "PHERON_API_KEY", "OPENAI_API_KEY"):
        monkeypatch.setenv(name, "x")
    native = load_agent_config(EXAMPLES / "native.yaml")
    rest = load_agent_config(EXAMPLES / "rest.yaml")
    openai = load_agent_config(EXAMPLES / "openai.yaml")
    assert (native.mode, rest.mode, openai.mode) == ("native", "rest", "openai")
    assert rest.rest is not None and rest.rest.response.text == "result.answer"
    assert openai.openai is not None and openai.openai.params["temperature"] == 0
    assert native.workspace and native.workspace.startswith(str(Path.home()))
    assert (ROOT / "docs" / "agents.md").is_file()
    model = load_agent_config(EXAMPLES / "model.yaml")
    assert model.example is not None and model.example.model == "gemma3-270m"
    assert model.example.options == ("--openai-max-steps", "3")


def test_progress_kinds() -> None:
    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    assert type(make_progress(True)) is Progress
    assert isinstance(make_progress(False, Tty()), RichProgress)
    stream = io.StringIO()
    line = make_progress(False, stream)
    assert isinstance(line, LineProgress)
    line.start(2, 0, "run.jsonl")
    line.attempt_started("L1-A-01", 1, 2)
    line.eta(Estimate(1.0, 2.0, 4.0))  # the runner's estimate after the attempt, with its range
    line.attempt_done(Attempt(test_id="L1-A-01", run=1, verdict="ERROR", error_cause="busy"))
    lines = stream.getvalue().splitlines()
    assert len(lines) == 3 and lines[2].endswith(
        "[1/2] L1-A-01 run 1: ERROR (busy) | eta 0:00:02 (0:00:01 to 0:00:04)"
    )
    assert lines[0][:4].isdigit() and lines[0][10] == " "  # a timestamp first


def test_env_defaults_and_an_empty_optional_header_is_left_out(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("AGENTTEST_T_UNSET", raising=False)
    monkeypatch.setenv("AGENTTEST_T_EMPTY", "")
    text = (
        "model: m\nbase_url: 'http://${AGENTTEST_T_UNSET:-127.0.0.1}:1'\n"
        "headers:\n  Authorization: 'Bearer ${AGENTTEST_T_UNSET:-}'\n"
        "  X-Empty: '${AGENTTEST_T_EMPTY:-}'\n  X-Default: '${AGENTTEST_T_EMPTY:-fallback}'\n"
    )
    cfg = parse_agent_config(text, "a.yaml", tmp_path)
    assert cfg.base_url == "http://127.0.0.1:1"
    assert dict(cfg.headers) == {"X-Default": "fallback"}
    monkeypatch.setenv("AGENTTEST_T_UNSET", "tok")
    cfg = parse_agent_config(text, "a.yaml", tmp_path)
    assert cfg.headers["Authorization"] == "Bearer tok"
    # without a default the variable stays required, and the error says how to relax it
    with pytest.raises(InputError) as caught:
        parse_agent_config(
            "model: m\nbase_url: http://h:1\nheaders: {A: '${AGENTTEST_T_NOPE}'}\n", "b.yaml"
        )
    (line,) = caught.value.lines()
    assert line.startswith("b.yaml:3:") and "${AGENTTEST_T_NOPE:-}" in line


def test_the_openai_example_needs_no_key_for_a_local_server(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    assert "Authorization" not in load_agent_config(EXAMPLES / "openai.yaml").headers
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    assert load_agent_config(EXAMPLES / "openai.yaml").headers["Authorization"] == "Bearer sk-test"


# -- hosted_tools: where the harness serves the agent's tools over MCP -----------------------------


def test_hosted_tools_gives_each_replica_its_own_endpoint(tmp_path: Path) -> None:
    one = parse_agent_config(
        "model: m\nbase_url: http://h:1\nhosted_tools: {url: 'http://127.0.0.1:8931/mcp'}\n",
        "a.yaml",
        tmp_path,
    )
    assert one.hosted_tools is not None and one.hosted_tools.url == "http://127.0.0.1:8931/mcp"
    assert [c.hosted_tools for c in one.pool()] == [one.hosted_tools]
    assert one.redacted()["hosted_tools"] == {"url": "http://127.0.0.1:8931/mcp"}
    pool = parse_agent_config(
        "model: m\nreplicas:\n"
        "  - {base_url: 'http://a:1', hosted_tools: {url: 'http://127.0.0.1:8931/mcp'}}\n"
        "  - {base_url: 'http://b:1', hosted_tools: {url: 'http://localhost:8932/tools/mcp'}}\n",
        "a.yaml",
        tmp_path,
    )
    assert [c.hosted_tools.url for c in pool.pool() if c.hosted_tools] == [
        "http://127.0.0.1:8931/mcp",
        "http://localhost:8932/tools/mcp",
    ]
    assert (
        parse_agent_config("model: m\nbase_url: http://h:1\n", "a.yaml", tmp_path).hosted_tools
        is None
    )


def test_the_agent_config_schema_takes_the_shipped_configs_and_refuses_what_the_loader_does(
    tmp_path: Path,
) -> None:
    import jsonschema
    import yaml

    done = run_cli("schema", "--agent-config")
    assert done.returncode == 0, done.stderr
    schema = json.loads(done.stdout)
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    shipped = sorted(EXAMPLES.glob("*.yaml"))
    assert shipped  # the precondition: there are configs to check
    for path in shipped:
        assert validator.is_valid(yaml.safe_load(path.read_text("utf-8"))), path
    hosted = schema["$defs"]["HostedToolsAt"]
    assert hosted["required"] == ["url"] and "MCP" in hosted["properties"]["url"]["description"]
    good = {"model": "m", "base_url": "http://h:1", "hosted_tools": {"url": "http://127.0.0.1:5/m"}}
    bad = [
        {**good, "hosted_tool": {"url": "http://127.0.0.1:5/m"}},  # a misspelt key
        {**good, "hosted_tools": {"url": 5}},
        {**good, "hosted_tools": {}},
        {**good, "replicas": [{"base_url": "http://a:1", "hosted_tools": "http://x"}]},
        {**good, "timeouts": {"answer_s": "soon"}},
        {**good, "mode": "grpc"},
    ]
    for config in [good, *bad]:
        by_loader = True
        try:
            parse(json.dumps(config), tmp_path)
        except InputError:
            by_loader = False
        assert validator.is_valid(config) == by_loader, config
    assert parse(json.dumps(good), tmp_path)  # the good one loads


# -- openai.tools: the tool definitions a plain chat-completions agent is offered (issue 31) -------


def test_the_openai_example_offers_the_example_agents_tools_and_names_a_workspace(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from agenttest.example_agent import openai_tools

    monkeypatch.delenv("AGENTTEST_WORKSPACE", raising=False)
    shipped = load_agent_config(EXAMPLES / "openai.yaml")
    assert shipped.openai is not None and shipped.openai.params["tools"] == openai_tools()
    assert shipped.workspace and shipped.workspace.startswith(str(Path.home()))
    monkeypatch.setenv("AGENTTEST_WORKSPACE", str(tmp_path / "ws"))
    assert load_agent_config(EXAMPLES / "openai.yaml").workspace == str(tmp_path / "ws")


def test_openai_tools_are_read_from_a_file_next_to_the_config(tmp_path: Path) -> None:
    tool = {"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}
    (tmp_path / "listed.json").write_text(json.dumps([tool]), encoding="utf-8")
    (tmp_path / "served.json").write_text(json.dumps({"tools": [tool]}), encoding="utf-8")
    head = "model: m\nbase_url: http://h:1\nmode: openai\nopenai:\n"
    for name in ("listed.json", "served.json"):  # a list, or what GET /v1/tools serves
        cfg = parse_agent_config(f"{head}  tools: {name}\n", str(tmp_path / "a.yaml"))
        assert cfg.openai is not None and cfg.openai.params["tools"] == [tool]
        assert cfg.openai.params["tool_choice"] == "auto"


@pytest.mark.parametrize(
    ("content", "extra", "said"),
    [
        (None, "", "cannot be read"),
        ("{not json", "", "is not JSON"),
        ('{"tools": 3}', "", "a list of tool definitions"),
        ('[{"type": "function", "function": {}}]', "", "tool 1 has no function.name"),
        ("[]", "  params: {tools: []}\n", "give the tools once"),
    ],
)
def test_a_bad_openai_tools_file_is_a_located_problem(
    tmp_path: Path, content: str | None, extra: str, said: str
) -> None:
    if content is not None:
        (tmp_path / "tools.json").write_text(content, encoding="utf-8")
    text = f"model: m\nbase_url: http://h:1\nmode: openai\nopenai:\n  tools: tools.json\n{extra}"
    with pytest.raises(InputError) as caught:
        parse_agent_config(text, str(tmp_path / "a.yaml"))
    (line,) = caught.value.lines()
    assert line.startswith(f"{tmp_path / 'a.yaml'}:5: `openai.tools`") and said in line, line
