"""The block loader: accepts a complete block, rejects each bad kind with FILE:LINE."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from agenttest.blocks import load_battery, load_block_file
from agenttest.cli import main
from agenttest.errors import InputError

from .conftest import FIXTURES

GOOD = FIXTURES / "blocks" / "good"
BAD = FIXTURES / "blocks" / "bad"
OVERLAYS = FIXTURES / "blocks" / "overlays"


def _expectation(path: Path) -> tuple[int, str]:
    first = path.read_text(encoding="utf-8").splitlines()[0]
    m = re.match(r"# expect: (\d+): (.*)$", first)
    assert m, f"{path} lacks an '# expect: LINE: message' header"
    return int(m.group(1)), m.group(2)


def _bad_cases() -> list[tuple[str, Path, Path]]:
    """(name, path to validate, file whose header holds the expectation)."""
    cases = []
    for p in sorted(BAD.iterdir()):
        if p.is_dir():
            expect = next(f for f in sorted(p.iterdir()) if f.read_text().startswith("# expect"))
            cases.append((p.name, p, expect))
        else:
            cases.append((p.stem, p, p))
    return cases


def test_complete_block_loads_with_every_field() -> None:
    battery = load_battery([GOOD])
    block = battery.get("L2-FULL-01")
    assert block is not None
    assert battery.get("L2-TAM-01") is block  # alias resolves to the same block
    assert block.tier == "L2" and block.k == 3 and block.owasp == ("ASI02",)
    assert [t.prompt for t in block.turns][1] == "thanks, what number did you write?"
    assert block.turns[0].translations["tr"].startswith("notes/hosts.txt")
    assert [c.id for c in block.criteria.pass_] == ["P1", "P2", "P3", "P4", "P5", "P6", "P7", "P8"]
    any_of = block.criteria.pass_[5]
    assert any_of.type == "any_of" and [c.id for c in any_of.of] == ["P6a", "P6b"]
    assert block.criteria.fail[1].critical and block.criteria.fail[1].rule == "dangerous_command"
    assert block.criteria.fail[2].negate is True
    assert [f.kind for f in block.fixtures] == [
        "file",
        "absent",
        "git_repo",
        "web_page",
        "memory_reset",
    ]
    assert block.fixtures[2].commits == ("first", "second")
    assert block.reference.markers == {"write_call": "CALL file_write"}
    assert block.tool_names("file_read") == ("file_read",)  # unmapped role names itself
    assert block.source is not None and block.source.file.endswith("L2-FULL-01.yaml")


def test_overlay_replaces_reference_fields_only() -> None:
    plain = load_battery([GOOD]).get("L2-FULL-01")
    over = load_battery([GOOD], overlay=FIXTURES / "blocks" / "good-overlay.yaml").get("L2-FULL-01")
    assert plain is not None and over is not None
    assert over.tool_names("file_read") == ("read_file",)
    assert over.tool_names("file_write") == ("write_file",)
    assert over.reference.markers["write_call"] == "CALL(34)"
    assert over.prompts()[0].startswith("notes/hosts.txt satırlarını")  # language: tr
    assert plain.prompts()[0].startswith("count the lines")
    # the universal part is untouched
    assert over.criteria == plain.criteria and over.turns == plain.turns and over.k == plain.k


@pytest.mark.parametrize(("name", "target", "expect_file"), _bad_cases(), ids=lambda v: str(v))
def test_each_bad_block_is_rejected_with_file_and_line(
    name: str, target: Path, expect_file: Path
) -> None:
    line, message = _expectation(expect_file)
    with pytest.raises(InputError) as info:
        load_battery([target])
    rendered = info.value.lines()
    wanted = f"{expect_file}:{line}: {message}"
    assert any(r.startswith(wanted) for r in rendered), f"{wanted!r} not in {rendered!r}"


@pytest.mark.parametrize("overlay", sorted(OVERLAYS.iterdir()), ids=lambda p: p.stem)
def test_each_bad_overlay_is_rejected_with_file_and_line(overlay: Path) -> None:
    line, message = _expectation(overlay)
    with pytest.raises(InputError) as info:
        load_battery([GOOD], overlay=overlay)
    wanted = f"{overlay}:{line}: {message}"
    assert any(r.startswith(wanted) for r in info.value.lines()), info.value.lines()


def test_at_least_twelve_kinds_of_bad_input() -> None:
    assert len(_bad_cases()) + len(list(OVERLAYS.iterdir())) >= 12


def test_all_problems_reported_in_one_pass(tmp_path: Path) -> None:
    for p in BAD.glob("*.yaml"):
        shutil.copy(p, tmp_path / p.name)
    with pytest.raises(InputError) as info:
        load_battery([tmp_path])
    files_hit = {line.split(":", 1)[0] for line in info.value.lines()}
    assert files_hit == {str(tmp_path / p.name) for p in BAD.glob("*.yaml")}


def test_a_misspelt_key_and_a_misspelt_criterion_type_show_together(tmp_path: Path) -> None:
    # One pass: the block's shape fails (`tittle`), and the criterion type typos in the same
    # file are still named, with their lines and the type meant, whether the criterion is
    # otherwise sound (P1) or not (F1 lacks its tag); a sound criterion is not named (P2).
    block = tmp_path / "b.yaml"
    block.write_text(
        "id: L1-X-01\ntier: L1\ncategory: X\ntittle: t\n"
        'turns:\n  - prompt: "hi"\n'
        "criteria:\n  pass:\n"
        "    - {id: P1, tag: STATE, type: tool_caled, tool: calculator, says: ran}\n"
        "    - {id: P2, tag: STATE, type: response_number, value: 3, says: three}\n"
        "  fail:\n    - {id: F1, type: no_tool_cals, says: none}\n",
        encoding="utf-8",
    )
    with pytest.raises(InputError) as info:
        load_battery([block])
    lines = info.value.lines()
    assert any(f"{block}:4: unknown key `tittle`" in line for line in lines)
    assert (
        f"{block}:9: unknown criterion type `tool_caled` in criteria.pass[P1] "
        "(did you mean `tool_called`?)" in lines
    )
    assert any(
        line.startswith(f"{block}:12: unknown criterion type `no_tool_cals`") for line in lines
    )
    assert not any("P2" in line for line in lines)
    numbers = [problem.line for problem in info.value.problems]
    assert numbers == sorted(numbers)  # top to bottom, as the file is fixed


def test_a_battery_problem_shows_beside_another_files_problem(tmp_path: Path) -> None:
    # b.yaml loads but two of its roles share a tool: a battery-level problem, named in the
    # same pass as a.yaml's misspelt key rather than after a.yaml is fixed.
    block = "id: {id}\ntier: L1\ncategory: X\n{title}: t\ncapability: c\nk: 3\n"
    block += 'turns:\n  - prompt: "hi"\ncriteria:\n  pass:\n'
    block += "    - {{id: P1, tag: STATE, type: tool_called, tool: file_list, says: ran}}\n"
    (tmp_path / "a.yaml").write_text(block.format(id="L1-X-01", title="tittle"), "utf-8")
    shared = "reference:\n  tools:\n    file_list: files\n    file_delete: files\n"
    (tmp_path / "b.yaml").write_text(block.format(id="L1-Y-01", title="title") + shared, "utf-8")
    with pytest.raises(InputError) as info:
        load_battery([tmp_path])
    lines = info.value.lines()
    assert any(line.startswith(f"{tmp_path / 'a.yaml'}:4: unknown key `tittle`") for line in lines)
    assert any(
        line.startswith(
            f"{tmp_path / 'b.yaml'}:1: reference.tools: roles `file_list` and "
            "`file_delete` both map to `files`"
        )
        for line in lines
    )


def test_yaml_tags_never_execute(tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    block = tmp_path / "b.yaml"
    block.write_text(f'id: !!python/object/apply:os.system ["touch {marker}"]\n')
    found, problems, _ = load_block_file(block)
    assert found is None and problems
    assert not marker.exists()


def test_validate_cli_exit_codes_and_lines(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", str(GOOD)]) == 0
    assert "1 blocks valid" in capsys.readouterr().out
    assert main(["validate", str(BAD / "k_zero.yaml"), str(BAD / "bad_tier.yaml")]) == 2
    err = capsys.readouterr().err.splitlines()
    assert f"{BAD / 'k_zero.yaml'}:8: `k` must be at least 1, got 0" in err
    assert any(line.startswith(f"{BAD / 'bad_tier.yaml'}:3: ") for line in err)


def test_validate_in_a_real_process_prints_no_traceback(cli) -> None:  # type: ignore[no-untyped-def]
    result = cli("validate", str(BAD))
    assert result.returncode == 2
    assert "Traceback" not in result.stderr + result.stdout
    located = [ln for ln in result.stderr.splitlines() if re.match(r"^\S+:\d+: ", ln)]
    assert len(located) >= 19
    ok = cli("validate", str(GOOD), "--overlay", str(FIXTURES / "blocks" / "good-overlay.yaml"))
    assert ok.returncode == 0, ok.stderr


def test_missing_path_is_a_usage_error(cli) -> None:  # type: ignore[no-untyped-def]
    result = cli("validate", "no/such/folder")
    assert result.returncode == 2
    assert "no/such/folder:0: no such file or folder" in result.stderr
