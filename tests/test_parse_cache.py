"""The parse cache: a block file is parsed once per content, and nothing else changes.

A kept parse is used while the file's text is the same, a changed file is parsed again, an
entry that is torn, altered or another file's is ignored and written again, and every
``FILE:LINE`` message reads the same from a warm cache as from a cold one. Whether a load
parsed is seen through PyYAML's own ``yaml.compose``, which every parse goes through.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import yaml

from agenttest.blocks import load_battery, load_block_file, unparsed_files, validate_paths
from agenttest.errors import InputError

from .conftest import ROOT, run_cli

BLOCK = """\
id: {id}
tier: L1
category: CALC
title: {title}
capability: c
turns: ["what is 2 + 2?"]
k: 1
criteria:
  pass:
    - {{id: P1, tag: STATE, type: response_contains, values: ["4"], says: the sum}}
    - {{id: P2, tag: STATE, type: response_number, value: 4.0, tolerance: 0.5, says: as a number}}
"""


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "cache"
    monkeypatch.setenv("AGENTTEST_CACHE_DIR", str(folder))
    return folder


@pytest.fixture
def parses(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The documents parsed from now on (each `yaml.compose` call's text)."""
    seen: list[str] = []
    compose = yaml.compose

    def counting(stream: str, *args: object, **kwargs: object) -> object:
        seen.append(stream)
        return compose(stream, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(yaml, "compose", counting)
    return seen


def _battery(folder: Path, **titles: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for block_id, title in titles.items():
        (folder / f"{block_id}.yaml").write_text(BLOCK.format(id=block_id, title=title), "utf-8")
    return folder


def _entries(cache: Path) -> Iterator[Path]:
    return (p for p in cache.rglob("*") if p.is_file())


def test_an_unchanged_file_is_parsed_once(tmp_path: Path, cache: Path, parses: list[str]) -> None:
    folder = _battery(tmp_path / "b", **{"L1-A-01": "first", "L1-B-01": "second"})
    cold = load_battery([folder])
    assert len(parses) == 2
    warm = load_battery([folder])
    assert len(parses) == 2  # both came from the cache
    assert warm.blocks == cold.blocks and warm.digest == cold.digest
    block = warm.get("L1-A-01")
    assert block is not None and block.title == "first"
    assert type(block.criteria.pass_[1].value) is float  # 4.0 stays a float, not 4


def test_the_cache_gives_back_exactly_what_a_parse_gives(cache: Path) -> None:
    # Every value of the shipped battery: texts, integers, floats that look like integers,
    # booleans, nulls, nested lists and mappings, cases, and the lines behind each.
    cold = load_battery([ROOT / "batteries"])
    assert any(_entries(cache))
    warm = load_battery([ROOT / "batteries"])
    assert warm.blocks == cold.blocks
    for block in warm:
        for criterion in (*block.criteria.pass_, *block.criteria.fail):
            before = cold.get(block.id).criteria  # type: ignore[union-attr]
            twin = next(c for c in (*before.pass_, *before.fail) if c.id == criterion.id)
            assert type(criterion.value) is type(twin.value)  # 4.0 stays a float, 4 an int


def test_a_changed_file_is_parsed_again(tmp_path: Path, cache: Path, parses: list[str]) -> None:
    folder = _battery(tmp_path / "b", **{"L1-A-01": "first", "L1-B-01": "second"})
    load_battery([folder])
    assert unparsed_files([folder]) == []
    _battery(folder, **{"L1-A-01": "changed"})
    assert unparsed_files([folder]) == [folder / "L1-A-01.yaml"]
    parses.clear()
    battery = load_battery([folder])
    assert len(parses) == 1 and "changed" in parses[0]
    assert battery.get("L1-A-01").title == "changed"  # type: ignore[union-attr]
    assert battery.get("L1-B-01").title == "second"  # type: ignore[union-attr]


def test_every_file_is_to_be_parsed_with_an_empty_cache(tmp_path: Path, cache: Path) -> None:
    folder = _battery(tmp_path / "b", **{"L1-A-01": "first", "L1-B-01": "second"})
    assert unparsed_files([folder]) == [folder / "L1-A-01.yaml", folder / "L1-B-01.yaml"]


def _truncate(data: bytes) -> bytes:
    return data[: len(data) // 2]


def _alter_body(data: bytes) -> bytes:
    return data.replace(b"first", b"forged")  # the checksum in the header no longer holds


def _alter_header(data: bytes) -> bytes:
    head, _, body = data.partition(b"\n")
    return head.replace(b'"key":"', b'"key":"0') + b"\n" + body


CORRUPTIONS: dict[str, Callable[[bytes], bytes]] = {
    "empty": lambda data: b"",
    "torn": _truncate,
    "not json": lambda data: b"\x00\xff garbage \n \x80",
    "json of another shape": lambda data: b'{"key": 1}\n[1, 2, 3]',
    "body altered": _alter_body,
    "header altered": _alter_header,
    "no header": lambda data: data.partition(b"\n")[2],
}


@pytest.mark.parametrize("corrupt", CORRUPTIONS.values(), ids=CORRUPTIONS.keys())
def test_a_corrupt_entry_is_ignored_and_written_again(
    tmp_path: Path, cache: Path, parses: list[str], corrupt: Callable[[bytes], bytes]
) -> None:
    folder = _battery(tmp_path / "b", **{"L1-A-01": "first"})
    fresh = load_battery([folder])
    (entry,) = _entries(cache)
    entry.write_bytes(corrupt(entry.read_bytes()))
    parses.clear()
    again = load_battery([folder])
    assert len(parses) == 1  # parsed, not read from the damaged entry
    assert again.blocks == fresh.blocks
    assert again.get("L1-A-01").title == "first"  # type: ignore[union-attr]
    load_battery([folder])
    assert len(parses) == 1  # the entry was written again, whole


def test_an_entry_of_another_file_is_not_used(
    tmp_path: Path, cache: Path, parses: list[str]
) -> None:
    folder = _battery(tmp_path / "b", **{"L1-A-01": "first", "L1-B-01": "second"})
    load_battery([folder])
    one, other = sorted(_entries(cache))
    one_bytes, other_bytes = one.read_bytes(), other.read_bytes()
    one.write_bytes(other_bytes)
    other.write_bytes(one_bytes)
    parses.clear()
    battery = load_battery([folder])
    assert len(parses) == 2
    assert battery.get("L1-A-01").title == "first"  # type: ignore[union-attr]
    assert battery.get("L1-B-01").title == "second"  # type: ignore[union-attr]


@pytest.mark.parametrize(
    "text",
    [
        BLOCK.replace("tolerance: 0.5", "tolerance: .inf"),  # JSON would give back null
        BLOCK.replace("k: 1\n", 'k: 1\nnotes: "\\ud800 a lone surrogate"\n'),  # no UTF-8
    ],
    ids=["infinity", "lone surrogate"],
)
def test_values_json_cannot_hold_are_parsed_each_time(
    tmp_path: Path, cache: Path, parses: list[str], text: str
) -> None:
    folder = tmp_path / "b"
    folder.mkdir()
    (folder / "L1-A-01.yaml").write_text(text.format(id="L1-A-01", title="t"), "utf-8")
    first, second = load_battery([folder]), load_battery([folder])
    assert len(parses) == 2 and second.blocks == first.blocks


BAD_KEY = BLOCK.replace("k: 1\n", "k: 1\nbogus: 3\n")  # line 8: valid YAML, unknown key
BAD_YAML = BLOCK.replace("k: 1\n", "k: 1\ntitle: twice\n")  # line 8: a duplicate key
BAD_VALUE = BLOCK.replace("tag: STATE, type: response_number", "tag: STATUS, type: response_number")


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        (BAD_KEY, 8, "unknown key `bogus` in block"),
        (BAD_YAML, 8, "duplicate key `title` (first on line 4)"),
        (BAD_VALUE, 11, "`criteria.pass[1].tag` must be one of "),
    ],
    ids=["unknown key", "duplicate key", "value out of its set"],
)
def test_problems_read_the_same_from_a_warm_cache(
    tmp_path: Path, cache: Path, text: str, line: int, message: str
) -> None:
    path = tmp_path / "L1-BAD-01.yaml"
    path.write_text(text.format(id="L1-BAD-01", title="t"), "utf-8")
    seen = []
    for _ in range(2):  # cold, then warm where the document was kept
        with pytest.raises(InputError) as caught:
            validate_paths([path])
        seen.append(caught.value.lines())
    assert seen[0] == seen[1]
    assert f"{path}:{line}: {message}" in seen[1][0]


def test_lines_are_those_of_the_current_text(tmp_path: Path, cache: Path) -> None:
    path = tmp_path / "L1-A-01.yaml"
    path.write_text(BLOCK.format(id="L1-A-01", title="t"), "utf-8")
    load_block_file(path)
    path.write_text("# a comment moves every line down\n" + BAD_KEY.format(id="L1-A-01", title="t"))
    _block, problems, _node = load_block_file(path)
    assert [str(p) for p in problems] == [f"{path}:9: unknown key `bogus` in block"]


def test_the_cache_lives_under_xdg_cache_home_or_home(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = _battery(tmp_path / "b", **{"L1-A-01": "first"})
    monkeypatch.delenv("AGENTTEST_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    load_battery([folder])
    assert any(_entries(tmp_path / "xdg" / "agenttest"))
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    load_battery([folder])
    assert any(_entries(tmp_path / "home" / ".cache" / "agenttest"))


def test_a_cache_that_cannot_be_written_costs_only_the_parse(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, parses: list[str]
) -> None:
    folder = _battery(tmp_path / "b", **{"L1-A-01": "first"})
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("x", "utf-8")
    monkeypatch.setenv("AGENTTEST_CACHE_DIR", str(blocker))
    first, second = load_battery([folder]), load_battery([folder])
    assert first.blocks == second.blocks and len(parses) == 2
    assert blocker.read_text("utf-8") == "x"


def test_a_long_first_load_says_what_it_parses_then_is_quiet(tmp_path: Path) -> None:
    folder = _battery(tmp_path / "b", **{f"L1-N{i:02d}-01": f"block {i}" for i in range(12)})
    env = {"AGENTTEST_CACHE_DIR": str(tmp_path / "cache")}
    cold = run_cli("list", str(folder), env=env)
    assert cold.returncode == 0, cold.stderr
    assert cold.stderr.splitlines()[0] == "loading blocks: parsing 12 new or changed files ..."
    warm = run_cli("list", str(folder), env=env)
    assert warm.returncode == 0 and warm.stdout == cold.stdout
    assert warm.stderr == "12 blocks\n"


def test_a_run_says_first_what_it_loads(tmp_path: Path) -> None:
    folder = _battery(tmp_path / "b", **{"L1-A-01": "first", "L1-B-01": "second"})
    env = {"AGENTTEST_CACHE_DIR": str(tmp_path / "cache")}
    argv = ["run", str(folder), "--only", "L1-A-01", "--k", "1", "--agent", "example"]
    argv += ["--out", str(tmp_path / "out"), "--allow-temp", "--judge", "none"]
    cold = run_cli(*argv, env=env)
    assert cold.returncode == 0, cold.stderr
    assert cold.stderr.splitlines()[0] == "loading blocks: parsing 2 new or changed files ..."
    warm = run_cli(*argv, env=env)
    assert warm.returncode == 0, warm.stderr
    assert warm.stderr.splitlines()[0] == "loading blocks (all parsed before) ..."
    quiet = run_cli(*argv, "--quiet", env=env)
    assert quiet.returncode == 0 and quiet.stderr == ""
