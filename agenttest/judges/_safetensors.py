"""A tiny, pure-numpy reader for the ``.safetensors`` weight format.

The format is: an 8-byte little-endian unsigned header length ``N``, then ``N`` bytes of
JSON mapping tensor names to ``{"dtype", "shape", "data_offsets": [begin, end]}`` (offsets
are relative to the end of the header), then the raw little-endian tensor bytes. An optional
``__metadata__`` entry holds string metadata and is skipped.

We read it ourselves so the judge needs neither ``torch`` nor the ``safetensors`` package.
"""

from __future__ import annotations

import json
import struct
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agenttest.errors import JudgeUnavailable

if TYPE_CHECKING:
    import numpy as np

# Refuse absurd headers instead of allocating gigabytes for a corrupt file.
_MAX_HEADER_BYTES = 100 * 1024 * 1024

_DTYPES = {
    "F64": "<f8",
    "F32": "<f4",
    "F16": "<f2",
    "I64": "<i8",
    "I32": "<i4",
    "I16": "<i2",
    "I8": "i1",
    "U8": "u1",
    "BOOL": "?",
}


class SafetensorsError(JudgeUnavailable, ValueError):
    """The file is not a well-formed safetensors file: the judge's model cannot be loaded."""


def read_safetensors(path: str | Path) -> dict[str, np.ndarray]:
    """Read every tensor of ``path`` into numpy arrays (BF16 is widened to float32)."""
    import numpy as np

    raw = Path(path).read_bytes()
    if len(raw) < 8:
        raise SafetensorsError(f"{path}: too short to be a safetensors file")
    (header_len,) = struct.unpack("<Q", raw[:8])
    if header_len > _MAX_HEADER_BYTES or 8 + header_len > len(raw):
        raise SafetensorsError(f"{path}: header length {header_len} is out of range")
    try:
        header: dict[str, Any] = json.loads(raw[8 : 8 + header_len])
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise SafetensorsError(f"{path}: header is not JSON ({exc})") from exc
    if not isinstance(header, dict):
        raise SafetensorsError(f"{path}: header is not a JSON object")

    body = memoryview(raw)[8 + header_len :]
    tensors: dict[str, np.ndarray] = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        try:
            dtype_name = str(info["dtype"])
            shape = [int(d) for d in info["shape"]]
            begin, end = (int(x) for x in info["data_offsets"])
        except (KeyError, TypeError, ValueError) as exc:
            raise SafetensorsError(f"{path}: bad entry for {name!r}") from exc
        if not 0 <= begin <= end <= len(body):
            raise SafetensorsError(f"{path}: {name!r} points outside the file")
        count = 1
        for dim in shape:
            count *= dim
        chunk = body[begin:end]
        if dtype_name == "BF16":
            if len(chunk) != 2 * count:
                raise SafetensorsError(f"{path}: {name!r} has the wrong byte size")
            halves = np.frombuffer(chunk, dtype="<u2").astype(np.uint32)
            array = (halves << 16).view(np.float32)
        elif dtype_name in _DTYPES:
            dtype = np.dtype(_DTYPES[dtype_name])
            if len(chunk) != dtype.itemsize * count:
                raise SafetensorsError(f"{path}: {name!r} has the wrong byte size")
            array = np.frombuffer(chunk, dtype=dtype).copy()
        else:
            raise SafetensorsError(f"{path}: {name!r} has unsupported dtype {dtype_name}")
        tensors[name] = array.reshape(shape)
    return tensors
