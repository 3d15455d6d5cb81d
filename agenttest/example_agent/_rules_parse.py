"""Extraction helpers of the rules brain: quotes, paths, URLs, numbers, arithmetic, cities.

All of them are general text rules (documented in ``docs/example-agent.md``); none of them
knows any test prompt.
"""

from __future__ import annotations

import re

from ._calc import CalcError, evaluate, format_number
from ._guard import fold

_QUOTES = re.compile(r"\"([^\"]*)\"|“([^”]*)”|‘([^’]*)’|`([^`]*)`|(?<![\w'’])'([^'\n]*)'(?![\w])")
EXTENSIONS = {
    "txt", "md", "markdown", "rst", "py", "js", "ts", "json", "jsonl", "yaml", "yml", "toml",
    "ini", "cfg", "conf", "csv", "tsv", "log", "html", "htm", "css", "xml", "sh", "bash",
    "env", "c", "h", "cpp", "hpp", "rs", "go", "java", "kt", "rb", "php", "sql", "pdf", "png",
    "jpg", "jpeg", "gif", "svg", "doc", "docx", "xls", "xlsx", "ppt", "pptx", "zip", "tar",
    "gz", "bak", "tmp", "lock", "out", "dat", "bin", "pem", "key", "pub", "gitignore",
    "swift", "mm", "cs", "vue", "jsx", "tsx", "scss", "eml", "msg", "ics", "vcf", "rtf",
    "odt", "ods", "mp3", "wav", "flac", "m4a", "ogg", "mp4", "mov",
    "avi", "mkv", "webm", "heic", "webp", "tif", "tiff", "part", "crdownload", "patch", "diff",
    "plist", "lua", "pl", "jl", "ipynb", "parquet", "db", "sqlite", "xcf", "psd", "epub",
}  # fmt: skip
DOTFILES = {".env", ".gitignore", ".gitattributes", ".bashrc", ".profile", ".zshrc", ".npmrc",
            ".editorconfig", ".dockerignore", ".prettierrc", ".eslintrc"}  # fmt: skip
_URL = re.compile(r"https?://[^\s<>\"'`)\]]+", re.I)
_TR_SUFFIX = re.compile(r"['’][a-zçğıöşü]+$", re.I)
_NUMBER_WORDS = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "bir": 1, "iki": 2, "uc": 3, "dort": 4, "bes": 5, "alti": 6,
    "yedi": 7, "sekiz": 8, "dokuz": 9, "on": 10,
}  # fmt: skip


def quoted(text: str) -> list[str]:
    """Every quoted chunk ("…", “…”, ‘…’, `…`, or '…' not used as a Turkish apostrophe)."""
    return [next(g for g in m.groups() if g is not None) for m in _QUOTES.finditer(text)]


def unquoted(text: str, placeholder: str = " ") -> str:
    return _QUOTES.sub(placeholder, text)


def looks_like_path(token: str) -> bool:
    if not token or "://" in token or len(token) > 200:
        return False
    if not re.fullmatch(r"[\w./~ -]+", token) or not re.search(r"[A-Za-z_~.]", token):
        return False
    if re.fullmatch(r"[\d./ ]+", token):
        return False  # 1/2, 3.5
    if token.startswith(("/", "~", "./", "../")) or ("/" in token and " " not in token):
        return True
    if re.fullmatch(r"\.[\w-]+", token):
        return token.lower() in DOTFILES  # ".part" alone names a kind of file, not a file
    stem, dot, ext = token.rpartition(".")
    return bool(dot and stem and ext.lower() in EXTENSIONS)


def _clean_token(raw: str) -> str:
    token = raw.strip(',;:!?()[]{}<>"“”')
    token = _TR_SUFFIX.sub("", token)
    return token.rstrip(".") if not token.endswith("..") else token


def paths(text: str) -> list[str]:
    """File paths named in ``text``, in order: quoted ones, then bare tokens."""
    found = [q.strip() for q in quoted(text) if looks_like_path(q.strip())]
    for raw in unquoted(text).split():
        token = _clean_token(raw)
        if looks_like_path(token) and token not in found:
            found.append(token)
    return found


def folder_name(text: str) -> str | None:
    """A folder named without a slash: "the docs folder", "docs klasörü", "folder docs"."""
    skip = {"the", "a", "this", "that", "my", "current", "bu", "su", "workspace", "calisma"}
    f = fold(unquoted(text))
    for pattern in (
        r"([\w.-]+)['’]?\w*\s+(?:folder|directory|dir|klasor\w*|dizin\w*)\b",
        r"\b(?:folder|directory|klasor|dizin)\s+([\w.-]+)",
        r"\b(?:in|inside|under|into|to)\s+(?:the\s+)?([\w.-]+)\s+(?:folder|directory)\b",
    ):
        for m in re.finditer(pattern, f):
            name = m.group(1)
            if name not in skip and not name.isdigit():
                return as_typed(text, name)
    return None


def as_typed(text: str, folded_word: str) -> str:
    """The word as the user typed it (folding lowers case and drops diacritics)."""
    for raw in re.findall(r"[\w.-]+", text):
        if fold(raw) == folded_word:
            return str(raw)
    return folded_word


def as_typed_phrase(text: str, folded_phrase: str) -> str:
    """A folded phrase as the user typed it, word by word."""
    return " ".join(as_typed(text, word) for word in folded_phrase.split())


def urls(text: str) -> list[str]:
    return [u.rstrip(".,;:!?") for u in _URL.findall(text)]


def first_count(text: str) -> int | None:
    f = fold(text)
    m = re.search(r"\b(\d{1,4})\b", f)
    if m:
        return int(m.group(1))
    for word in re.findall(r"[a-z]+", f):
        if word in _NUMBER_WORDS:
            return _NUMBER_WORDS[word]
    return None


# --------------------------------------------------------------------------- arithmetic

_NUM = r"(\d+(?:\.\d+)?)"
_WORD_OPS: list[tuple[str, str]] = [
    (r"(?:the\s+)?square\s+root\s+of\s+" + _NUM, r"sqrt(\1)"),
    (r"\bsqrt\s+(?:of\s+)?" + _NUM, r"sqrt(\1)"),
    (_NUM + r"\s*(?:sayisinin\s+)?karekok\w*", r"sqrt(\1)"),
    (r"karekok\w*\s+" + _NUM, r"sqrt(\1)"),
    (_NUM + r"\s*(?:%|percent|per cent)\s+of\s+" + _NUM, r"(\1% * \2)"),
    (_NUM + r"\s+(?:sayisinin\s+)?yuzde\s*" + _NUM, r"(\1 * \2%)"),
    (r"\byuzde\s*" + _NUM, r"\1%"),
    (r"(?<![\w)])%\s*" + _NUM, r"\1%"),
    (r"\bsum of\s+" + _NUM + r"\s+and\s+" + _NUM, r"(\1 + \2)"),
    (r"\bproduct of\s+" + _NUM + r"\s+and\s+" + _NUM, r"(\1 * \2)"),
    (_NUM + r"\s*(?:sayisinin\s+)?karesi\b", r"\1^2"),
    (_NUM + r"\s*(?:sayisinin\s+)?kupu\b", r"\1^3"),
    (r"\bsquared\b", "^2"),
    (r"\bcubed\b", "^3"),
    (r"\bmultiply\s+(\S+)\s+(?:by|with)\s+", r"\1 * "),
    (r"\bdivide\s+(\S+)\s+by\s+", r"\1 / "),
    (r"\bsubtract\s+" + _NUM + r"\s+from\s+" + _NUM, r"(\2 - \1)"),
    (_NUM + r"\s+(?:ile|la|le)\s+carp\w*", r"* \1"),
    (_NUM + r"\s+(?:ile|la|le)\s+bol\w*", r"/ \1"),
    (r"\b(?:to the power of|raised to(?: the power of)?|to the)\b", "^"),
    (r"\b(?:multiplied by|times|carpi|kere|kez)\b", "*"),
    (r"\b(?:divided by|over|bolu)\b", "/"),
    (r"\b(?:plus|arti)\b", "+"),
    (r"\b(?:minus|eksi)\b", "-"),
    (r"\b(?:ussu|uzeri)\b", "^"),
    (r"\b(?:modulo|mod)\b", "%"),
    (r"(?<=\d)\s*x\s*(?=\d)", " * "),
]
_WORD_OPS_RE = [(re.compile(p), r) for p, r in _WORD_OPS]
_SPAN = re.compile(r"(?:sqrt|abs|round|pi\b|[\d.+\-*/^%()\s])+")
_HAS_OP = re.compile(r"[\d)%]\s*(?:\*\*|[-+*/^%])\s*[-\d(s]|sqrt|abs\(|round\(|\d%")


def normalize_numbers(text: str) -> str:
    """Thousands commas go, decimal commas become points, Turkish suffixes after numbers go."""
    text = re.sub(r"(?<=\d)['’][a-zçğıöşü]+", "", text, flags=re.I)
    text = re.sub(r"(?<=\d),(?=\d{3}(?!\d))", "", text)
    return re.sub(r"(?<=\d),(?=\d)", ".", text)


def math_text(text: str) -> tuple[str, bool]:
    """``text`` folded with arithmetic words turned into operators; True if any word was."""
    out = normalize_numbers(fold(text)).replace("×", "*").replace("÷", "/").replace("−", "-")
    changed = False
    for pattern, repl in _WORD_OPS_RE:
        out, n = pattern.subn(repl, out)
        changed = changed or n > 0
    return out, changed


def _trim(span: str) -> str:
    span = span.strip()
    while span and span[-1] in "+-*/^.(":
        span = span[:-1].rstrip()
    while span and span[0] in "+*/^%.)":
        span = span[1:].lstrip()
    while span.count("(") > span.count(")") and span.startswith("("):
        span = span[1:].lstrip()
    while span.count(")") > span.count("(") and span.endswith(")"):
        span = span[:-1].rstrip()
    return span


def expression(text: str) -> tuple[str, str, bool] | None:
    """``(expression, value, worded)`` of the longest arithmetic span that evaluates."""
    converted, worded = math_text(text)
    best: tuple[str, str] | None = None
    for m in _SPAN.finditer(converted):
        span = _trim(m.group(0))
        if not re.search(r"\d", span) or not _HAS_OP.search(span):
            continue
        if re.fullmatch(r"\d{4}-\d{1,2}-\d{1,2}|\d{1,2}/\d{1,2}/\d{2,4}", span):
            continue  # a date, not a subtraction
        try:
            value = format_number(evaluate(span))
        except CalcError:
            continue
        if best is None or len(span) > len(best[0]):
            best = (span, value)
    return (best[0], best[1], worded) if best else None


def bare_simple_expression(text: str) -> str | None:
    """The message is nothing but ``a op b`` on integers of at most 3 digits (``12 * 7 =?``)."""
    m = re.fullmatch(r"\s*(\d{1,3})\s*([-+*/x×÷])\s*(\d{1,3})\s*=?\s*\??\s*", text)
    if not m:
        return None
    op = {"x": "*", "×": "*", "÷": "/"}.get(m.group(2), m.group(2))
    return f"{m.group(1)} {op} {m.group(3)}"


# --------------------------------------------------------------------------- splitting

_STRONG = re.compile(
    r"\s*(?:,\s*)?\b(?:and then|and after that|after that|afterwards|then|ve sonra|"
    r"sonra da|ardindan|ardından|daha sonra|sonra)\b\s*,?\s*|\s*;\s*|"
    r"(?<=[a-z0-9][?!.])\s+(?-i:(?=[A-ZÇĞİÖŞÜ]))",
    re.I,
)
_WEAK = re.compile(r"\s*,\s*|\s+and\s+|\s+also\s+|\s+ve\s+|\s+ayrica\s+|\s+hem\s+de\s+", re.I)


def _protect(text: str) -> tuple[str, list[str]]:
    saved: list[str] = []

    def keep(m: re.Match[str]) -> str:
        saved.append(m.group(0))
        return f"\x00{len(saved) - 1}\x00"

    return _QUOTES.sub(keep, text), saved


def _restore(text: str, saved: list[str]) -> str:
    return re.sub(r"\x00(\d+)\x00", lambda m: saved[int(m.group(1))], text).strip(" ,.")


def split_steps(text: str, weak: bool) -> list[str]:
    """Pieces of a multi-step request, quotes kept whole. ``weak`` also splits on , / and."""
    protected, saved = _protect(text)
    protected = re.sub(r"(?<=\d),(?=\d)", "\x01", protected)
    pieces = _STRONG.split(protected)
    if weak:
        pieces = [p for piece in pieces for p in _WEAK.split(piece)]
    restored = [_restore(p.replace("\x01", ","), saved) for p in pieces]
    return [p for p in restored if p]
