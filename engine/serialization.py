"""``torch.save`` / ``torch.load``: tensors, state_dicts and containers of them, in a format of
our own that can hold nothing but data.

PyTorch pickles (and, since 2.6, loads with ``weights_only=True``, which refuses anything but
tensors and plain containers). The playground never unpickles: a file is a magic line, a JSON
header describing the object (containers, numbers, strings, and for each tensor its dtype,
shape, ``requires_grad`` and whether it is a ``Parameter``), then each tensor's raw bytes.

A path (``torch.save(model.state_dict(), "model.pt")``) names an entry in :data:`SCRATCH`, an
in-memory file system of this process: the sandbox's worker runs one program and exits, so it
is the run's own scratch space, gone when the run ends, and no real file is ever opened. A file
object (``io.BytesIO``, anything with ``write`` / ``read``) is written to or read from as it is.
"""

from __future__ import annotations

import io
import json
import os
from collections import OrderedDict
from typing import Any

import numpy as np

from engine import dtypes
from engine.backend import to_numpy
from engine.registry import public
from engine.sizes import Size
from engine.tensor import Parameter, Tensor

__all__ = ["SCRATCH", "load", "save"]

#: ``torch.save(obj, path)``: the bytes of each path saved to in this process, by path.
SCRATCH: dict[str, bytes] = {}

_MAGIC = b"AGPT-SAVE 1\n"

#: what a saved object may hold besides tensors and containers
_SCALARS = (bool, int, float, str, type(None))


def _path_key(f: Any) -> str | None:
    """The scratch space's key for a path (str, bytes or os.PathLike), None for a file."""
    if isinstance(f, str | bytes | os.PathLike):
        path = os.fsdecode(os.fspath(f))
        return os.path.normpath(path)
    return None


class _Writer:
    """Encodes an object as a JSON-able tree, collecting tensors' bytes as it goes."""

    def __init__(self) -> None:
        self.blobs: list[bytes] = []
        self.offset = 0

    def tensor(self, t: Tensor) -> dict[str, Any]:
        data = np.asarray(to_numpy(t._data), order="C")
        raw = data.tobytes()
        entry = {
            "tensor": str(data.dtype),
            "shape": list(data.shape),
            "offset": self.offset,
            "nbytes": len(raw),
            "requires_grad": bool(t.requires_grad),
        }
        if isinstance(t, Parameter):
            entry["parameter"] = True
        self.blobs.append(raw)
        self.offset += len(raw)
        return entry

    def encode(self, obj: Any) -> Any:
        if isinstance(obj, Tensor):
            return self.tensor(obj)
        if isinstance(obj, _SCALARS):
            return obj
        if isinstance(obj, dtypes.DType):
            return {"dtype": str(dtypes.to_numpy_dtype(obj))}
        if isinstance(obj, Size):
            return {"size": list(obj)}
        if isinstance(obj, OrderedDict | dict):
            kind = "odict" if isinstance(obj, OrderedDict) else "dict"
            items = [[self.encode(k), self.encode(v)] for k, v in obj.items()]
            return {kind: items}
        if isinstance(obj, list):
            return {"list": [self.encode(v) for v in obj]}
        if isinstance(obj, tuple):
            return {"tuple": [self.encode(v) for v in obj]}
        if isinstance(obj, np.ndarray | np.generic):
            return {"ndarray": self.tensor(Tensor._wrap(np.asarray(obj)))}
        raise TypeError(
            f"torch.save in the playground stores tensors, numbers, strings and dicts, lists "
            f"and tuples of them, not {type(obj).__name__} (save model.state_dict() rather than "
            "the model itself, as PyTorch recommends)"
        )


def _decode(node: Any, raw: memoryview) -> Any:
    if not isinstance(node, dict):
        if isinstance(node, list):  # not written by _Writer
            raise RuntimeError("torch.load: the file is damaged")
        return node
    if "tensor" in node:
        dtype = np.dtype(node["tensor"])
        start, size = int(node["offset"]), int(node["nbytes"])
        array = np.frombuffer(raw[start : start + size], dtype=dtype).reshape(tuple(node["shape"]))
        t = Tensor._wrap(array.copy())
        if node.get("parameter"):
            return Parameter(t, requires_grad=node["requires_grad"])
        t.requires_grad = bool(node["requires_grad"])
        return t
    if "ndarray" in node:
        return _decode(node["ndarray"], raw)._data
    if "dtype" in node:
        return dtypes.from_numpy(np.dtype(node["dtype"]))
    if "size" in node:
        return Size(node["size"])
    if "odict" in node:
        return OrderedDict((_key(k, raw), _decode(v, raw)) for k, v in node["odict"])
    if "dict" in node:
        return {_key(k, raw): _decode(v, raw) for k, v in node["dict"]}
    if "list" in node:
        return [_decode(v, raw) for v in node["list"]]
    if "tuple" in node:
        return tuple(_decode(v, raw) for v in node["tuple"])
    raise RuntimeError("torch.load: the file is damaged")


def _key(node: Any, raw: memoryview) -> Any:
    key = _decode(node, raw)
    return tuple(key) if isinstance(key, list) else key


def dumps(obj: Any) -> bytes:
    """The bytes ``torch.save`` writes for obj."""
    writer = _Writer()
    header = json.dumps(writer.encode(obj), separators=(",", ":")).encode()
    return b"".join([_MAGIC, len(header).to_bytes(8, "little"), header, *writer.blobs])


def loads(data: bytes) -> Any:
    """The object ``torch.load`` reads from bytes made by :func:`dumps`."""
    if not data.startswith(_MAGIC):
        raise RuntimeError(
            "Invalid magic number; corrupt file? (the playground's torch.load reads what its "
            "torch.save wrote)"
        )
    at = len(_MAGIC)
    size = int.from_bytes(data[at : at + 8], "little")
    header = json.loads(data[at + 8 : at + 8 + size])
    return _decode(header, memoryview(data)[at + 8 + size :])


@public("save")
def save(
    obj: Any,
    f: Any,
    pickle_module: Any = None,
    pickle_protocol: int = 2,
    _use_new_zipfile_serialization: bool = True,
    _disable_byteorder_record: bool = False,
) -> None:
    """Save obj (tensors, state_dicts, containers of them) to a file object or a path."""
    data = dumps(obj)
    key = _path_key(f)
    if key is not None:
        SCRATCH[key] = data
        return
    if not hasattr(f, "write"):
        raise AttributeError(f"'{type(f).__name__}' object has no attribute 'write'")
    f.write(data)


@public("load")
def load(
    f: Any,
    map_location: Any = None,
    pickle_module: Any = None,
    *,
    weights_only: bool | None = None,
    mmap: bool | None = None,
    **pickle_load_args: Any,
) -> Any:
    """Load what :func:`save` wrote (``map_location`` and ``weights_only`` are accepted: the
    playground's files hold only data, on the CPU)."""
    key = _path_key(f)
    if key is not None:
        if key not in SCRATCH:
            raise FileNotFoundError(2, "No such file or directory", os.fspath(f))
        return loads(SCRATCH[key])
    if not hasattr(f, "read"):
        raise AttributeError(f"'{type(f).__name__}' object has no attribute 'read'")
    data = f.read()
    if isinstance(f, io.TextIOBase) or isinstance(data, str):
        raise TypeError("torch.load needs a file opened in binary mode")
    return loads(bytes(data))
