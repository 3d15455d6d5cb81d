"""Mutation testing of one module at a time, with only the tests that exercise it.

    python tools/mutation.py stats            # copy, configure, run, print the survivors
    python tools/mutation.py text --only "agenttest.text._normalize*"
    python tools/mutation.py --list

mutmut (``pip install mutmut``; 3.x) mutates in ``mutants/`` next to ``pyproject.toml`` and
first runs the whole configured test selection to learn which test reaches which function.
Over the whole package and the whole suite that never finished on a shared 2-core machine,
so this script makes a scratch copy of the checkout (``git archive HEAD`` plus the working
tree's changes to the module's tests), narrows ``[tool.mutmut]`` there to one module and
the test files below, and runs mutmut under ``nice``. The checkout itself is not touched.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from fnmatch import fnmatch
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def tests_without(path: str, *fixtures: str, skip: tuple[str, ...] = ()) -> list[str]:
    """The node ids of the tests in ``path`` that take none of ``fixtures`` (nor ``skip``).

    A test file's module fixture that imports the corpus or runs a CLI costs seconds, and a
    forked mutant pays it again for every mutant of every function the file reaches: the
    unit tests beside those fixtures are what a mutation run can afford.
    """
    tree = ast.parse((ROOT / path).read_text("utf-8"))
    return [
        f"{path}::{node.name}"
        for node in tree.body
        if isinstance(node, ast.FunctionDef)
        and node.name.startswith("test_")
        and node.name not in skip
        and not {a.arg for a in node.args.args} & set(fixtures)
    ]


#: library tests of the judge's pairs file, not of grading
_JUDGE_PAIRS = (
    "test_check_pairs_counts_good_lines_and_skips_blank_ones",
    "test_check_pairs_reports_every_bad_line_with_file_and_line",
    "test_check_pairs_stops_after_max_problems",
    "test_a_missing_pairs_file_is_one_located_problem",
    "test_score_pairs_file_rows_in_order_rounded_and_judge_closed",
    "test_score_pairs_file_checks_the_whole_file_before_building_the_judge",
    "test_a_judge_left_early_is_closed",
)

#: the criteria, a spec per family of graders, and the engine, its rules and its context:
#: with the survivors' tests folded in, they pin the criteria and the text reading under them
_GRADING_SPECS = [
    "tests/test_text_criteria.py",
    "tests/test_tool_criteria.py",
    "tests/test_trace_criteria.py",
    "tests/test_file_criteria.py",
    "tests/test_attempt_criteria.py",
    "tests/test_stream_criteria.py",
    "tests/test_grounding_criteria.py",
    "tests/test_grading_verdict.py",
    "tests/test_grading_rules.py",
    "tests/test_grading_context.py",
]

#: module -> (path or paths to mutate, the test files that exercise it)
MODULES: dict[str, tuple[str | list[str], list[str]]] = {
    "stats": (
        "agenttest/stats/",
        ["tests/test_stats.py", "tests/test_agreement.py"],
    ),
    "grading": (
        "agenttest/grading/",
        [
            "tests/test_grading_normalize.py",
            *_GRADING_SPECS,
            # not the tests of tests/test_grading_limits.py at the real 256 Ki cap (a 32 MiB
            # reply, a subprocess run: seconds each, paid again by every mutant of every
            # function they reach); its small_cap tests pin the same rules at 20 characters
            *tests_without(
                "tests/test_grading_limits.py",
                skip=(
                    "test_a_32_mib_unpunctuated_reply_is_graded_on_the_shipped_edge_block",
                    "test_the_graded_prefix_is_what_decides_and_the_evidence_says_so",
                    "test_an_exponential_author_pattern_leaves_its_criterion_undecided",
                    "test_sigterm_while_grading_stops_the_run_and_records_the_attempt",
                ),
            ),
            "tests/test_shared_numbers.py",
            # file criteria, the world state, preconditions and regrade, in process
            *tests_without("tests/test_calls_counted.py", "imported", "battery"),
            *tests_without(
                "tests/test_verdict_trust.py",
                "imported",
                "battery",
                skip=(  # a whole report each
                    "test_report_and_agreement_give_one_kappa_interval",
                    "test_a_run_file_reported_with_its_copy_supersedes_nothing",
                ),
            ),
            *tests_without("tests/test_library_commands.py", skip=_JUDGE_PAIRS),
        ],
    ),
    "text": (
        # text and number reading, shared by grading and the judges (split from grading)
        "agenttest/text/",
        [
            "tests/test_grading_normalize.py",
            "tests/test_shared_numbers.py",
            "tests/test_judge_checks.py",
            *_GRADING_SPECS,
            *tests_without("tests/test_calls_counted.py", "imported", "battery"),
        ],
    ),
    "client": (
        # the client, its one-request sender and its waiting (split from one module)
        [
            "agenttest/agents/_client.py",
            "agenttest/agents/_sender.py",
            "agenttest/agents/_waiting.py",
        ],
        [
            "tests/test_runner_client.py",
            "tests/test_runner_stream.py",
        ],
    ),
    "results": (
        "agenttest/results/",
        [
            # not the real runs of the example agent (test_records), a 2 GiB line and
            # 200,000 torn lines (test_hostile_run_files), the property test over every
            # command (test_record_fuzz), the crash suite's subprocesses nor the rate
            # prompts: seconds each, paid again by every mutant they reach
            *tests_without("tests/test_records.py", "real_files"),
            "tests/test_results_files.py",
            *tests_without(
                "tests/test_hostile_run_files.py",
                skip=("test_a_2_gib_line_is_skipped_under_a_1_gib_memory_limit",),
            ),
            *tests_without(
                "tests/test_record_fuzz.py", skip=("test_no_odd_field_value_crashes_a_command",)
            ),
            "tests/test_parity_grades.py",  # slot_key, and grades naming their agent
        ],
    ),
    "aggregate": (
        # the reader of run files and the tables it fills (split from one module)
        ["agenttest/reporting/_aggregate.py", "agenttest/reporting/_tally.py"],
        [
            # In-process reports of small run files. Every test here reaches the reader's
            # hot loop, so each is paid again by each of its mutants: not the 21 MB file of
            # the memory test, the CLI subprocesses (most of test_report_formats, the
            # mixed-battery refusal), the loopback agent runs (test_cases), Chromium (test_report_viewer), the corpus and grading
            # tests of test_verdict_trust, nor the sections' own HTML and Markdown tests
            # (test_report_ttft, the trust page): 1-15 s each under `--durations`. The
            # whole files took >50 min in mutmut's first pass alone.
            *tests_without(
                "tests/test_report_aggregate.py",
                skip=(
                    "test_memory_stays_flat_while_transcripts_grow",
                    "test_files_of_different_batteries_are_refused_unless_asked",
                ),
            ),
            "tests/test_report_published.py",
            "tests/test_report_one_pass.py",
            *tests_without(
                "tests/test_trust_report.py",
                skip=("test_html_report_has_the_trust_section_as_text",),
            ),
            "tests/test_report_formats.py::test_json_rates_are_null_without_gradable_attempts",
            "tests/test_report_formats.py::"
            "test_junit_skips_a_block_whose_attempts_all_await_a_human_rating",
            "tests/test_verdict_trust.py::test_a_run_file_reported_with_its_copy_supersedes_nothing",
            "tests/test_parity_grades.py",  # grades of a --parity run pair with their agent
        ],
    ),
}


#: mutmut's exit codes of a mutant run (mutmut.stats.status_by_exit_code), folded
STATUS: dict[int | None, str] = {1: "killed", 3: "killed", 0: "survived", 5: "no tests"}
STATUS |= {33: "no tests", 37: "caught by type check", -9: "killed by a signal"}
STATUS |= {code: "timeout" for code in (36, -24, 24, 152, 255)}


def status(code: int | None) -> str:
    return STATUS.get(code, "not checked" if code is None else f"exit {code}")


def exit_codes(target: Path) -> dict[str, int | None]:
    """Each mutant's recorded exit code in the scratch folder (None: not checked yet)."""
    codes: dict[str, int | None] = {}
    for meta in sorted((target / "mutants").rglob("*.meta")):
        codes.update(json.loads(meta.read_text("utf-8"))["exit_code_by_key"])
    return codes


def function_hashes(target: Path) -> dict[str, str]:
    """mutmut's hash of each mutated function's code, keyed like its mutants' names."""
    hashes: dict[str, str] = {}
    for meta in sorted((target / "mutants").rglob("*.meta")):
        module = meta.relative_to(target / "mutants").as_posix().removesuffix(".py.meta")
        data = json.loads(meta.read_text("utf-8"))
        for function, digest in data.get("hash_by_function_name", {}).items():
            hashes[f"{module.replace('/', '.')}.{function}"] = digest
    return hashes


def function_of(mutant: str) -> str:
    return mutant.rsplit("__mutmut_", 1)[0]


def merged(
    before: dict[str, int | None],
    before_hashes: dict[str, str],
    target: Path,
) -> dict[str, int | None]:
    """Each current mutant's result: this run's, else the one before if its code is the same.

    mutmut forgets every result when the test selection changes, though a killed mutant stays
    killed when tests are only added; it also forgets the mutants of a function whose code
    changed, and those must not keep a result of the old code.
    """
    now = exit_codes(target)
    hashes = function_hashes(target)
    same = {
        m
        for m in before
        if m in now and before_hashes.get(function_of(m)) == hashes.get(function_of(m))
    }
    return {
        m: code if code is not None else (before[m] if m in same else None)
        for m, code in now.items()
    }


def paths_of(source: str | list[str]) -> list[str]:
    return [source] if isinstance(source, str) else source


def package_around(sources: list[str]) -> list[str]:
    """Every path of the package beside ``sources``, so ``also_copy`` never overwrites them.

    mutmut copies ``also_copy`` into ``mutants/`` before it generates: copying all of
    ``agenttest/`` put the original modules back with their own mtime, so every run generated
    every mutant again (minutes) and a second run could not reuse the first one's.
    """
    mutated = {Path(s.rstrip("/")) for s in sources}
    above = {parent for path in mutated for parent in path.parents} - {Path(".")}
    around: list[str] = []
    for folder in sorted(above):
        for entry in sorted((ROOT / folder).iterdir()):
            rel = entry.relative_to(ROOT)
            if rel not in mutated | above and entry.name != "__pycache__":
                around.append(rel.as_posix() + ("/" if entry.is_dir() else ""))
    return around


def mutmut_section(
    source: str | list[str], tests: list[str], timeout_multiplier: float | None = None
) -> str:
    also_copy = ["batteries/", "templates/", "tests/", *package_around(paths_of(source))]
    return (
        "[tool.mutmut]\n"
        f"source_paths = {json.dumps(paths_of(source))}\n"
        f"pytest_add_cli_args_test_selection = {json.dumps(tests)}\n"
        'pytest_add_cli_args = ["-p", "no:cacheprovider", "-q"]\n'
        f"also_copy = {json.dumps(also_copy)}\n"
        + (f"timeout_multiplier = {timeout_multiplier}\n" if timeout_multiplier else "")
    )


def scratch_copy(target: Path) -> None:
    """The committed tree plus the working tree's version of every tracked file."""
    shutil.rmtree(target, ignore_errors=True)
    target.mkdir(parents=True)
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", "HEAD"], check=True, capture_output=True
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(target)], input=archive, check=True)
    changed = subprocess.run(
        ["git", "-C", str(ROOT), "ls-files", "--modified", "--others", "--exclude-standard"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.split()
    for name in changed:
        if (ROOT / name).is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, target / name)


def refresh_package(target: Path) -> list[str]:
    """Copy the working tree's package files that differ from the scratch copy's; name them.

    New tests run against the package they were written for. A copied file gets a new
    mtime, so mutmut generates its mutants again and keeps the results of every function
    whose code hash is unchanged: only the changed functions' mutants are checked again.
    Files that are the same are left alone, or mutmut would regenerate everything.
    """
    changed: list[str] = []
    for path in sorted((ROOT / "agenttest").rglob("*")):
        if path.is_dir() or "__pycache__" in path.parts:
            continue
        rel = path.relative_to(ROOT)
        mine = target / rel
        if not mine.is_file() or mine.read_bytes() != path.read_bytes():
            mine.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, mine)  # a fresh mtime, on purpose
            changed.append(rel.as_posix())
    return changed


def configure(
    target: Path, source: str | list[str], tests: list[str], timeout_multiplier: float | None
) -> None:
    pyproject = target / "pyproject.toml"
    text = pyproject.read_text("utf-8")
    start = text.index("[tool.mutmut]")
    end = text.find("\n[", start + 1)
    end = len(text) if end < 0 else end + 1
    section = mutmut_section(source, tests, timeout_multiplier)
    pyproject.write_text(text[:start] + section + text[end:], "utf-8")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("module", nargs="?", choices=sorted(MODULES))
    parser.add_argument("--list", action="store_true", help="the modules and their tests")
    parser.add_argument("--only", action="append", default=[], help="mutant names (globs)")
    parser.add_argument("--children", type=int, default=2)
    parser.add_argument(
        "--reuse",
        action="store_true",
        help="keep the scratch folder's mutants and results; copy in the current tests and "
        "the package files that changed (mutmut then checks only changed functions again)",
    )
    parser.add_argument(
        "--again",
        action="store_true",
        help="with --reuse: run only the survivors, the mutants no test reached and the ones "
        "not checked yet (a changed test selection makes mutmut forget every result; killed "
        "ones stay killed when tests are only added), then count all",
    )
    parser.add_argument(
        "--dir", type=Path, help="scratch folder (default: a temp folder per module)"
    )
    parser.add_argument(
        "--timeout-multiplier",
        type=float,
        help="mutmut's (default 15): a mutant is stopped after this many times the duration "
        "of its tests. A mutant that keeps the agent from ever looking ready makes the "
        "client's tests wait out their readiness limit (minutes each); 3 stops it sooner",
    )
    args = parser.parse_args()
    if args.list or args.module is None:
        for name, (source, tests) in MODULES.items():
            print(f"{name:10} {' '.join(paths_of(source))}  <- {' '.join(tests)}")
        return 0
    source, tests = MODULES[args.module]
    target = args.dir or Path(tempfile.gettempdir()) / f"agenttest-mutation-{args.module}"
    before: dict[str, int | None] = {}
    before_hashes: dict[str, str] = {}
    args.reuse = args.reuse or args.again
    only = list(args.only)
    if args.again and (target / "mutants").is_dir():
        before = exit_codes(target)
        before_hashes = function_hashes(target)
        # and the ones not checked yet: a stopped run's rest, or mutants of a function whose
        # code changed (mutmut forgets their results when it generates them again)
        pending = ("survived", "no tests", "not checked")
        again = [m for m, code in before.items() if status(code) in pending]
        # --only narrows the rerun to those mutants
        only = [m for m in again if not only or any(fnmatch(m, glob) for glob in only)]
        if not only:
            print("nothing to run again: no survivor and no mutant without tests")
            return 0
    if args.reuse and (target / "mutants").is_dir():
        # keep the generated mutants (and their results, unless the selection changed);
        # bring over the working tree's tests and package
        shutil.copytree(ROOT / "tests", target / "tests", dirs_exist_ok=True)
        for name in refresh_package(target):
            print(f"changed since the scratch copy: {name}", flush=True)
    else:
        scratch_copy(target)
    configure(target, source, tests, args.timeout_multiplier)
    print(
        f"mutating {' '.join(paths_of(source))} in {target} with {len(tests)} test files",
        flush=True,
    )
    mutmut = shutil.which("mutmut") or sys.exit("mutmut is not installed: pip install mutmut")
    run = ["nice", "-n", "10", mutmut, "run", "--max-children", str(args.children), *only]
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    code = subprocess.run(run, cwd=target, env=env).returncode
    if code == 0 and before:
        # a changed function's mutants are generated again during the run above, unchecked:
        # check them now rather than count the old code's results
        fresh = [
            m
            for m, c in merged(before, before_hashes, target).items()
            if c is None and (not args.only or any(fnmatch(m, glob) for glob in args.only))
        ]
        if fresh:
            print(f"checking {len(fresh)} mutants of changed code", flush=True)
            run = [*run[: run.index("--max-children") + 2], *fresh]
            code = subprocess.run(run, cwd=target, env=env).returncode
    subprocess.run([mutmut, "results"], cwd=target)
    final = merged(before, before_hashes, target) if before else exit_codes(target)
    counts = Counter(status(c) for c in final.values())
    shown = ", ".join(f"{n} {what}" for what, n in sorted(counts.items()))
    print(f"{' '.join(paths_of(source))}: {sum(counts.values())} mutants: {shown}")
    return code


if __name__ == "__main__":
    sys.exit(main())
