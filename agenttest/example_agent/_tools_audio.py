"""``audio_analysis``: what an audio file in the workspace really is, read from its header.

Nothing is decoded or played. The tool reads the first bytes of the file and reports the
container it finds (WAV, FLAC, MP3, Ogg/Opus/Vorbis, MPEG-4 audio, AIFF) and, where the
header carries them, channels, sample rate, bit depth and duration. A file whose name
promises audio but whose header does not hold up is reported as such (that is a finding,
not a failure); a file that is audio by neither name nor content is an error.
"""

from __future__ import annotations

import struct
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ._base import ToolContext, ToolError, ToolOutput, str_arg

#: File extensions the rules brain treats as an audio cue, and the format each one names.
AUDIO_EXTENSIONS = {
    ".flac": "FLAC",
    ".wav": "WAV",
    ".wave": "WAV",
    ".mp3": "MP3",
    ".ogg": "Ogg",
    ".oga": "Ogg",
    ".opus": "Ogg",
    ".m4a": "MPEG-4 audio",
    ".aac": "AAC",
    ".aif": "AIFF",
    ".aiff": "AIFF",
}
_HEAD_BYTES = 64 * 1024


def _duration(seconds: float) -> str:
    minutes, rest = divmod(seconds, 60)
    return f"{int(minutes)}:{rest:05.2f}" if minutes else f"{rest:.2f} s"


def _wav(head: bytes) -> tuple[str, list[str]]:
    facts: list[str] = []
    fmt: tuple[int, int, int, int, int] | None = None
    data_size: int | None = None
    at = 12
    while at + 8 <= len(head):
        chunk, size = head[at : at + 4], struct.unpack_from("<I", head, at + 4)[0]
        if chunk == b"fmt " and size >= 16 and at + 24 <= len(head):
            tag, channels, rate, byte_rate, _align, bits = struct.unpack_from(
                "<HHIIHH", head, at + 8
            )
            fmt = (tag, channels, rate, byte_rate, bits)
        elif chunk == b"data":
            data_size = size
            break
        at += 8 + size + (size & 1)
    if fmt is None:
        return "WAV", ["RIFF/WAVE header found but no readable 'fmt ' chunk: not a playable WAV"]
    tag, channels, rate, byte_rate, bits = fmt
    codec = {1: "PCM", 3: "IEEE float", 6: "A-law", 7: "µ-law"}.get(tag, f"format tag {tag}")
    facts += [codec, f"{channels} channel(s)", f"{rate} Hz", f"{bits}-bit"]
    if data_size is not None and byte_rate:
        facts.append(f"duration {_duration(data_size / byte_rate)}")
    return "WAV", facts


def _flac(head: bytes) -> tuple[str, list[str]]:
    if len(head) < 8 + 34 or head[4] & 0x7F != 0 or head[5:8] != b"\x00\x00\x22":
        return "FLAC", [
            "the 'fLaC' marker is there but no valid STREAMINFO block follows: not a decodable "
            "FLAC stream (no sample rate, channels or duration to report)"
        ]
    info = int.from_bytes(head[18:26], "big")
    rate = info >> 44
    channels = ((info >> 41) & 0x7) + 1
    bits = ((info >> 36) & 0x1F) + 1
    samples = info & 0xFFFFFFFFF
    if rate == 0:
        return "FLAC", ["STREAMINFO gives a sample rate of 0: the stream header is corrupt"]
    facts = [f"{channels} channel(s)", f"{rate} Hz", f"{bits}-bit"]
    facts.append(f"duration {_duration(samples / rate)}" if samples else "duration not stored")
    return "FLAC", facts


def _sniff(head: bytes) -> tuple[str, list[str]] | None:
    """The format the content itself shows, with what its header says; None if no audio."""
    if head[:4] == b"RIFF" and head[8:12] == b"WAVE":
        return _wav(head)
    if head[:4] == b"fLaC":
        return _flac(head)
    if head[:3] == b"ID3":
        return "MP3", ["ID3v2 tag at the start (frames not decoded)"]
    if len(head) >= 2 and head[0] == 0xFF and head[1] & 0xE0 == 0xE0:
        return "MP3", ["MPEG audio frame header at the start (frames not decoded)"]
    if head[:4] == b"OggS":
        if b"OpusHead" in head[:200]:
            return "Ogg", ["Opus stream"]
        if b"\x01vorbis" in head[:200]:
            return "Ogg", ["Vorbis stream"]
        return "Ogg", ["Ogg container with an unknown codec"]
    if head[4:8] == b"ftyp":
        return "MPEG-4 audio", [f"brand {head[8:12].decode('latin-1').strip()}"]
    if head[:4] == b"FORM" and head[8:12] in (b"AIFF", b"AIFC"):
        return "AIFF", [head[8:12].decode()]
    return None


def audio_analysis(ctx: ToolContext, args: Mapping[str, Any]) -> ToolOutput:
    path = str_arg(args, "path").strip()
    real = ctx.workspace.resolve(path)
    if not real.is_file():
        raise ToolError(f"no such file: {path}")
    size = real.stat().st_size
    with open(real, "rb") as fh:
        head = fh.read(_HEAD_BYTES)
    named = AUDIO_EXTENSIONS.get(Path(path).suffix.lower())
    found = _sniff(head)
    shown = ctx.workspace.rel(real)
    if found is None:
        if named is None:
            raise ToolError(f"{shown} is not an audio file (no known audio header or extension)")
        return ToolOutput(
            f"{shown}: {size} bytes; the name says {named}, but the content has no {named} "
            "header (or any other audio header): it is not really an audio file"
        )
    kind, facts = found
    lines = f"{shown}: {kind}, {size} bytes; " + "; ".join(facts)
    if named is not None and named != kind:
        lines += f" (note: the extension says {named}, the content is {kind})"
    return ToolOutput(lines)
