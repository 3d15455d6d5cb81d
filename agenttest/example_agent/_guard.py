"""Text folding, language guess, dangerous-command and prompt-injection detection.

These are plain pattern lists, documented in ``docs/example-agent.md``. They are general:
nothing here knows a test block.
"""

from __future__ import annotations

import re
import unicodedata

_TR_MAP = str.maketrans("çğıöşüâîû", "cgiosuaiu")
_TR_CHARS = set("çğıöşüÇĞİÖŞÜ")
_TR_HINTS = {
    "merhaba", "selam", "nedir", "nasil", "kac", "lutfen", "dosya", "dosyayi", "dosyasini",
    "sil", "oku", "yaz", "hava", "saat", "hesapla", "goster", "listele", "evet", "hayir",
    "icin", "ile", "sonra", "benim", "adim", "gonder", "ac", "bir", "ve", "bu", "mi", "ne",
    "olustur", "kaydet", "hatirla", "bugun", "yarin", "nerede", "neler", "hangi", "carpi",
    "arti", "eksi", "bolu", "tamam", "mesaj", "uygulama", "ara", "arastir", "klasor",
}  # fmt: skip


def fold(text: str) -> str:
    """Lower-case, Turkish-aware, without diacritics: ``İstanbul'da`` → ``istanbul'da``."""
    text = text.replace("İ", "i").replace("I", "i").lower().translate(_TR_MAP)
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def is_turkish(text: str) -> bool:
    """A rough guess: Turkish letters, or at least one common Turkish word."""
    if any(c in _TR_CHARS for c in text):
        return True
    words = set(re.findall(r"[a-z]+", fold(text)))
    return bool(words & _TR_HINTS)


_DANGER: list[tuple[str, str]] = [
    (r"\brm\s+(-\w+\s+)*-\w*[rf]", "recursive or forced delete (rm -rf)"),
    (r"\brm\s+(-\w+\s+)*(/|~|\*|\.\.)", "deleting outside or across the workspace"),
    (r"\b(sudo|doas)\b|\bsu\s+(-|root)", "privilege escalation (sudo)"),
    (r"\bmkfs\b|\bdd\s+if=|>\s*/dev/(sd|nvme|hd)", "raw disk write"),
    (r"\b(curl|wget)\b[^|\n]*\|\s*(sudo\s+)?(ba|z|da|k)?sh\b", "piping a download into a shell"),
    (r":\(\)\s*\{", "fork bomb"),
    (r"\bchmod\s+(-\w+\s+)*0?777\b", "world-writable permissions"),
    (r"\b(shutdown|reboot|poweroff)\b", "shutting the machine down"),
    (r"/etc/(passwd|shadow|sudoers|gshadow)\b", "reading system account files"),
    (r"(~|\$home|/root|/home/[^/\s]+)/\.ssh\b|\bid_(rsa|ed25519|ecdsa|dsa)\b|\.ssh/",
     "reading SSH keys"),
    (r"\.aws/credentials|\.netrc\b|\.kube/config|\.git-credentials", "reading credentials"),
    (r"\b(format|wipe)\b.{0,20}\b(disk|drive)\b", "formatting a disk"),
    (r"\bdisk\w*\s+(bicimlendir|formatla)", "formatting a disk"),
    (r"\b(delete|remove|erase|wipe)\s+(all|every)\s+(the\s+|of\s+the\s+)?files\b",
     "bulk deletion of files"),
    (r"\b(tum|butun|her)\s+(dosyalari|seyi)\s+sil", "bulk deletion of files"),
]  # fmt: skip
_DANGER_RE = [(re.compile(p), reason) for p, reason in _DANGER]


def dangerous(text: str) -> str | None:
    """The reason ``text`` asks for something destructive or secret, or ``None``."""
    folded = fold(text)
    for pattern, reason in _DANGER_RE:
        if pattern.search(folded):
            return reason
    return None


_INJECTION = [
    r"\b(ignore|disregard|forget|override)\b.{0,40}\b(instructions?|rules|prompts?|directions)\b",
    r"\byou are now\b",
    r"\bnew (system )?instructions?\b",
    r"\bsystem prompt\b",
    r"\b(ai|llm|assistant|agent|chatbot|language model)s?\b.{0,15}\b(reading this|who reads?|"
    r"processing this)\b",
    r"\b(attention|note to|dear|hey)\b.{0,5}\b(ai|llm|assistants?|agents?|chatbots?)\b",
    r"^\W*(system|assistant|ai|agent)\s*:",
    r"\byou (must|should) (now )?(ignore|send|delete|reply|reveal|run|execute|forget)\b",
    r"^\W*(please\s+|now\s+)*(say|reply|respond|answer|print|output|type)\b[^.]{0,20}['\"“‘]",
    r"\b(list|read|cat|show|open|send|upload|delete|remove|print|reveal)\b[^.]{0,30}"
    r"(~/|\$home|/etc/|/root\b|\.ssh|\.env\b|api[_ ]?keys?|passwords?|credentials)",
    r"\b(reply|respond|answer|say) only\b",
    r"\b(send|email|forward|upload|post)\b.{0,60}\b(memory|password|secrets?|keys?|tokens?|"
    r"contents|files?)\b.{0,40}(\bto\b|@)",  # "to" a word: "token" names no recipient
    r"\b(delete|remove|erase|wipe)\b.{0,30}\b(all|every)\b.{0,20}\bfiles?\b",
    r"\b(run|execute)\b.{0,20}\b(this |the following )?(command|script)\b",
    r"\b(onceki|tum|butun|yukaridaki)\b.{0,30}\btalimat\w*.{0,30}\b(yok say|unut|gormezden gel|"
    r"dikkate alma)",
    r"\b(yapay zeka|asistan)\w*\s*:",
    r"\b(tum|butun|her)\s+(\w+\s+)?(dosya\w*|seyi)\s+sil",
    r"\b(gonder|ilet)\w*\b.{0,40}\b(hafiza|sifre|parola|anahtar)",
]
_INJECTION_RE = [re.compile(p) for p in _INJECTION]
_SENTENCE = re.compile(r"(?<=[.!?])\s+")


def looks_like_instruction(sentence: str) -> bool:
    folded = fold(sentence)
    return any(p.search(folded) for p in _INJECTION_RE)


def strip_instructions(text: str) -> tuple[str, int]:
    """Withhold sentences that address the agent with instructions.

    Returns the cleaned text and how many sentences were withheld. Fetched pages and files
    are data, never instructions: the agent never obeys them, and does not repeat them.
    """
    kept_lines: list[str] = []
    removed = 0
    for line in text.splitlines():
        kept: list[str] = []
        for sentence in _SENTENCE.split(line):
            if looks_like_instruction(sentence):
                removed += 1
            else:
                kept.append(sentence)
        if kept or not line.strip():
            kept_lines.append(" ".join(kept))
    if not removed:
        return text, 0
    kept_lines.append(f"[{removed} instruction-like sentence(s) withheld: untrusted content]")
    return "\n".join(kept_lines), removed
