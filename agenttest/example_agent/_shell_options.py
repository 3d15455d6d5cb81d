"""What the allow-listed shell may pass to each program: an allow-list of options, not a
deny-list.

The shell tool runs a fixed argv (no shell), but the programs themselves write files
(``sort -o``, ``uniq IN OUT``, ``find -fprint``), set the clock (``date -s``, ``date
MMDDhhmm``), follow links out of the workspace (``grep -R``, ``find -L``) or read names from
a file (``--files0-from``). An option may be spelled attached (``-o/x``, ``-fn1``,
``--output=/x``), abbreviated (``--out``), or after ``--``; so the command is parsed here as
each program's ``getopt`` would parse it, and only the options listed below pass, spelled
out in full. Every option value that names a file is checked like an operand (inside the
workspace, links resolved). The threat model is in docs/security.md.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Literal

from ._sandbox import Blocked, ToolError

#: what an option's value is: free ``text`` (a pattern, a format, a count) or a ``path``
#: the program opens (checked against the workspace)
Value = Literal["text", "path"]


@dataclass(frozen=True)
class Program:
    flags: str = ""  # short options without a value (they may be clustered: -la)
    valued: dict[str, Value] = field(default_factory=dict)  # short options with one
    long_flags: frozenset[str] = frozenset()
    long_valued: dict[str, Value] = field(default_factory=dict)  # --name=V or --name V
    digits: bool = False  # -5 means -n 5 (head, tail)
    operands: Literal["paths", "pattern+paths", "format", "text", "one-path"] = "paths"


def _longs(*names: str) -> frozenset[str]:
    return frozenset(names)


# fmt: off
PROGRAMS: dict[str, Program] = {
    "ls": Program(
        flags="aAlhrtS1dFpisUXvgonGBQkmxC",
        valued={"I": "text", "w": "text"},
        long_flags=_longs("--all", "--almost-all", "--human-readable", "--recursive",
                          "--reverse", "--directory", "--classify", "--size", "--inode"),
        long_valued={"--sort": "text", "--ignore": "text", "--hide": "text",
                     "--color": "text", "--time-style": "text", "--width": "text"},
    ),
    "wc": Program(
        flags="cmlLw",
        long_flags=_longs("--bytes", "--chars", "--lines", "--words", "--max-line-length"),
    ),
    "cat": Program(
        flags="AbeEnstTuv",
        long_flags=_longs("--number", "--number-nonblank", "--show-all", "--squeeze-blank",
                          "--show-ends", "--show-tabs", "--show-nonprinting"),
    ),
    "head": Program(
        flags="qvz",
        valued={"n": "text", "c": "text"},
        long_flags=_longs("--quiet", "--silent", "--verbose"),
        long_valued={"--lines": "text", "--bytes": "text"},
        digits=True,
    ),
    "tail": Program(  # no -f/-F/--follow/--pid/-s: a tool call must end
        flags="qvz",
        valued={"n": "text", "c": "text"},
        long_flags=_longs("--quiet", "--silent", "--verbose"),
        long_valued={"--lines": "text", "--bytes": "text"},
        digits=True,
    ),
    "grep": Program(  # no -R/--dereference-recursive: links are not followed out
        flags="ivwxclLnhHoqsrEFGPzZaIbTU",
        valued={"e": "text", "f": "path", "m": "text", "A": "text", "B": "text", "C": "text"},
        long_flags=_longs("--ignore-case", "--invert-match", "--word-regexp",
                          "--line-regexp", "--count", "--files-with-matches",
                          "--files-without-match", "--line-number", "--no-filename",
                          "--with-filename", "--only-matching", "--quiet", "--silent",
                          "--no-messages", "--recursive", "--extended-regexp",
                          "--fixed-strings", "--basic-regexp", "--perl-regexp", "--text"),
        long_valued={"--regexp": "text", "--file": "path", "--max-count": "text",
                     "--after-context": "text", "--before-context": "text",
                     "--context": "text", "--include": "text", "--exclude": "text",
                     "--exclude-dir": "text", "--color": "text", "--colour": "text"},
        operands="pattern+paths",
    ),
    "echo": Program(flags="neE", operands="text"),
    "date": Program(  # no -s/--set, and no MMDDhhmm operand: only +FORMAT
        flags="uR",
        valued={"d": "text", "r": "path", "f": "path"},
        long_flags=_longs("--utc", "--universal", "--rfc-email", "--debug"),
        long_valued={"--date": "text", "--reference": "path", "--file": "path",
                     "--rfc-3339": "text", "--iso-8601": "text"},
        operands="format",
    ),
    "pwd": Program(flags="LP", operands="text"),
    "sort": Program(  # no -o/-T/--compress-program/--files0-from: sort writes nothing
        flags="bdfgiMhnRrVsucCz",
        valued={"k": "text", "t": "text", "S": "text"},
        long_flags=_longs("--ignore-leading-blanks", "--dictionary-order", "--ignore-case",
                          "--general-numeric-sort", "--ignore-nonprinting", "--month-sort",
                          "--human-numeric-sort", "--numeric-sort", "--random-sort",
                          "--reverse", "--version-sort", "--stable", "--unique", "--check"),
        long_valued={"--key": "text", "--field-separator": "text", "--buffer-size": "text",
                     "--random-source": "path"},
    ),
    "uniq": Program(  # one input and no OUTPUT operand: uniq writes nothing
        flags="cdDuiz",
        valued={"f": "text", "s": "text", "w": "text"},
        long_flags=_longs("--count", "--repeated", "--unique", "--ignore-case"),
        long_valued={"--skip-fields": "text", "--skip-chars": "text", "--check-chars": "text"},
        operands="one-path",
    ),
}
# fmt: on

#: find's expression: each primary and whether it takes a value (and of what kind). No
#: -exec*/-ok*/-delete/-fprint*/-fls/-files0-from, and no -L/-follow (links stay unfollowed)
FIND_PRIMARIES: dict[str, Value | None] = {
    **dict.fromkeys(("-name", "-iname", "-path", "-ipath", "-wholename", "-iwholename",
                     "-regex", "-iregex", "-type", "-xtype", "-maxdepth", "-mindepth",
                     "-size", "-mtime", "-mmin", "-atime", "-amin", "-ctime", "-cmin",
                     "-perm", "-user", "-group", "-links", "-printf"), "text"),
    **dict.fromkeys(("-newer", "-anewer", "-cnewer", "-samefile"), "path"),
    **dict.fromkeys(("-print", "-print0", "-ls", "-prune", "-empty", "-readable",
                     "-writable", "-executable", "-true", "-false", "-not", "-a", "-o",
                     "-and", "-or", "!", "(", ")", "-depth", "-nouser", "-nogroup",
                     "-quit", "-P"), None),
}  # fmt: skip

Operand = Callable[[str], list[str]]  # checks a path operand; returns the words it stands for


def build_argv(words: list[str], operand: Operand) -> list[str]:
    """The argv for ``words`` (program first), or :class:`Blocked` for an option not on the
    program's list, a value that names a file outside the workspace, or a write."""
    program = words[0]
    if program == "find":
        return [program, *_find(words[1:], operand)]
    spec = PROGRAMS[program]
    options: list[str] = []
    texts: list[str] = []  # operands that are not files (a pattern, a format, echo's words)
    paths: list[str] = []
    pattern_given = False
    ended = False  # after "--" every word is an operand
    rest = iter(words[1:])
    for word in rest:
        if ended or program == "echo" or not word.startswith("-") or word == "-":
            (texts if spec.operands in ("text", "format") else paths).append(word)
        elif word == "--":
            ended = True
        elif word.startswith("--"):
            options.append(_long(program, spec, word, rest, operand))
            pattern_given |= options[-1].startswith(("--regexp=", "--file="))
        else:
            got = _short_cluster(program, spec, word, rest, operand)
            options.extend(got)
            pattern_given |= "-e" in got or "-f" in got
    if spec.operands == "pattern+paths" and not pattern_given and paths:
        texts.append(paths.pop(0))  # grep's first operand is its pattern
    if spec.operands == "format":
        for text in texts:
            if not text.startswith("+"):  # date MMDDhhmm... would set the clock
                raise Blocked(f"date operand {text!r} is not a +FORMAT (date sets nothing)")
    if spec.operands == "one-path" and len(paths) > 1:
        raise Blocked(f"{program} takes one input here: a second operand is a file it writes")
    checked = [_not_an_option(w) for p in paths for w in (operand(p) if p != "-" else [p])]
    if program == "echo":
        return [program, *texts]
    return [program, *options, *(["--"] if ended else []), *texts, *checked]


def _long(program: str, spec: Program, word: str, rest: Iterator[str], operand: Operand) -> str:
    """``--name`` or ``--name=V`` / ``--name V``, spelled in full (getopt would take an
    abbreviation for whichever option it starts)."""
    name, eq, value = word.partition("=")
    if name in spec.long_flags and not eq:
        return word
    kind = spec.long_valued.get(name)
    if kind is None:
        raise Blocked(f"option {name} of {program} is not allowed")
    if not eq:
        given = next(rest, None)
        if given is None:
            raise ToolError(f"option {name} of {program} needs a value")
        value = given
    return f"{name}={_value(kind, value, operand)}"


def _short_cluster(
    program: str, spec: Program, word: str, rest: Iterator[str], operand: Operand
) -> list[str]:
    """``-la``, ``-n5``, ``-o/x``, ``-fn1``: each letter as getopt reads it."""
    if spec.digits and re.fullmatch(r"-\d+", word):
        return [word]
    out: list[str] = []
    letters = word[1:]
    for i, letter in enumerate(letters):
        if letter in spec.flags:
            out.append(f"-{letter}")
            continue
        kind = spec.valued.get(letter)
        if kind is None:
            raise Blocked(f"option -{letter} of {program} is not allowed")
        value = letters[i + 1 :] or next(rest, None)
        if value is None:
            raise ToolError(f"option -{letter} of {program} needs a value")
        out += [f"-{letter}", _value(kind, value, operand)]
        break
    return out


def _value(kind: Value, value: str, operand: Operand) -> str:
    if kind == "path":
        operand_words = operand(value)
        if len(operand_words) != 1:
            raise Blocked(f"an option's file must be one file, not a pattern: {value}")
        return operand_words[0]
    return value


def _find(words: list[str], operand: Operand) -> list[str]:
    """``find [paths] [expression]``: the paths checked, every primary on the list."""
    out: list[str] = []
    rest = iter(words)
    in_expression = False
    for word in rest:
        if word in FIND_PRIMARIES:
            in_expression = True
            out.append(word)
            kind = FIND_PRIMARIES[word]
            if kind is not None:
                value = next(rest, None)
                if value is None:
                    raise ToolError(f"find {word} needs a value")
                out.append(_value(kind, value, operand))
            continue
        if word.startswith("-"):
            raise Blocked(f"option {word.split('=', 1)[0]} of find is not allowed")
        if in_expression:
            raise ToolError(f"find: a path after the expression: {word}")
        out.extend(_not_an_option(w) for w in operand(word))
    return out


def _not_an_option(path: str) -> str:
    """A file named ``-rf`` (a glob may expand to it) is passed as ``./-rf``."""
    return "./" + path if path.startswith("-") else path
