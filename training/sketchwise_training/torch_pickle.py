"""Read a PyTorch state dict (``torch.save``'s ``.pth``) with numpy alone, without importing torch.

Both of ``torch.save``'s layouts are read:

* the zip layout (torch >= 1.6): ``<root>/data.pkl`` plus one raw file per storage,
  ``<root>/data/<key>``;
* the legacy layout (before 1.6, e.g. the published EfficientNet-Lite weights): five pickles
  in a row (magic number, protocol version, system info, the object, the storage keys), then
  each storage as an 8-byte little-endian element count followed by its raw elements.

The pickle is read by a restricted unpickler: it builds only ordered dicts, tensors
(``torch._utils._rebuild_tensor_v2``, ``_rebuild_parameter``) and typed storages; any other
global in the file is refused with :class:`UnsafePickle` and never imported or run.
"""
from __future__ import annotations

import collections
import io
import pickle
import struct
import zipfile
from pathlib import Path

import numpy as np

LEGACY_MAGIC = 0x1950A86A20F9469CFC6C
LEGACY_PROTOCOL = 1001

#: The storage classes torch pickles, and the numpy dtype of their elements.
STORAGE_DTYPES = {
    "FloatStorage": "<f4", "DoubleStorage": "<f8", "HalfStorage": "<f2", "BFloat16Storage": None,
    "LongStorage": "<i8", "IntStorage": "<i4", "ShortStorage": "<i2", "CharStorage": "i1",
    "ByteStorage": "u1", "BoolStorage": "?",
}


class UnsafePickle(pickle.UnpicklingError):
    """The file asks for a global that a state dict never needs (code could run)."""


class _Storage:
    """A storage named in the pickle; its elements are attached once read."""

    def __init__(self, kind: str, key: str, count: int):
        if STORAGE_DTYPES.get(kind) is None:
            raise ValueError(f"storage type {kind} is not supported")
        self.kind, self.key, self.count = kind, key, count
        self.dtype = np.dtype(STORAGE_DTYPES[kind])
        self.data: np.ndarray | None = None


class _StorageType:
    """Stands for ``torch.<Kind>Storage`` in persistent ids."""

    def __init__(self, kind: str):
        self.kind = kind


class _TensorRef:
    """A tensor view of a storage, materialised after the storages are read."""

    def __init__(self, storage: _Storage, offset: int, size, stride):
        self.storage, self.offset, self.size, self.stride = storage, offset, tuple(size), tuple(stride)

    def array(self) -> np.ndarray:
        data = self.storage.data
        if data is None:
            raise ValueError(f"storage {self.storage.key} was never read")
        itemsize = data.dtype.itemsize
        end = self.offset + sum((n - 1) * s for n, s in zip(self.size, self.stride)) + 1 if all(self.size) else self.offset
        if self.offset < 0 or end > len(data):
            raise ValueError(f"tensor of size {self.size} runs past its storage {self.storage.key}")
        view = np.lib.stride_tricks.as_strided(
            data[self.offset:], shape=self.size, strides=[s * itemsize for s in self.stride], writeable=False)
        return np.array(view)


def _rebuild_tensor(storage, offset, size, stride, *rest):
    return _TensorRef(storage, offset, size, stride)


def _rebuild_parameter(data, requires_grad, backward_hooks, *rest):
    return data


class _Unpickler(pickle.Unpickler):
    ALLOWED = {
        ("collections", "OrderedDict"): collections.OrderedDict,
        ("torch._utils", "_rebuild_tensor_v2"): _rebuild_tensor,
        ("torch._utils", "_rebuild_parameter"): _rebuild_parameter,
    }

    def __init__(self, file, storages: dict[str, _Storage]):
        super().__init__(file)
        self.storages = storages

    def find_class(self, module, name):
        if (module, name) in self.ALLOWED:
            return self.ALLOWED[module, name]
        if module == "torch" and name in STORAGE_DTYPES:
            return _StorageType(name)
        raise UnsafePickle(f"refusing global {module}.{name}: not part of a plain state dict")

    def persistent_load(self, pid):
        if not (isinstance(pid, tuple) and len(pid) >= 5 and pid[0] == "storage" and isinstance(pid[1], _StorageType)):
            raise UnsafePickle(f"unexpected persistent id {pid!r}")
        kind, key, count = pid[1].kind, str(pid[2]), int(pid[4])
        if len(pid) > 5 and pid[5] is not None:
            raise ValueError(f"storage {key} is a view of another storage; not supported")
        if key not in self.storages:
            self.storages[key] = _Storage(kind, key, count)
        return self.storages[key]


def load_state_dict(path: Path) -> dict[str, np.ndarray]:
    """The tensors of the state dict in ``path``, by name, as numpy arrays (their own dtype)."""
    path = Path(path)
    storages: dict[str, _Storage] = {}
    if zipfile.is_zipfile(path):
        with zipfile.ZipFile(path) as archive:
            names = archive.namelist()
            pickles = [n for n in names if n.endswith("/data.pkl") or n == "data.pkl"]
            if len(pickles) != 1:
                raise ValueError(f"{path}: a zip without exactly one data.pkl is not a torch.save file")
            root = pickles[0][: -len("data.pkl")]
            obj = _Unpickler(io.BytesIO(archive.read(pickles[0])), storages).load()
            for key, storage in storages.items():
                raw = archive.read(f"{root}data/{key}")
                _attach(storage, raw, path)
    else:
        with open(path, "rb") as f:
            obj = _read_legacy(f, storages, path)
    return _tensors(obj, path)


def _read_legacy(f, storages: dict[str, _Storage], path: Path):
    def plain():
        return _Unpickler(f, {}).load()

    try:
        magic, protocol = plain(), plain()
    except (pickle.UnpicklingError, EOFError) as e:
        raise ValueError(f"{path}: neither a zip nor a legacy torch.save file ({e})") from e
    if magic != LEGACY_MAGIC or protocol != LEGACY_PROTOCOL:
        raise ValueError(f"{path}: not a torch.save file (magic {magic!r}, protocol {protocol!r})")
    info = plain()
    if not isinstance(info, dict) or not info.get("little_endian", False):
        raise ValueError(f"{path}: only little-endian files are read")
    obj = _Unpickler(f, storages).load()
    keys = plain()
    for key in keys:
        storage = storages.get(str(key))
        if storage is None:
            raise ValueError(f"{path}: storage {key} is listed but never used")
        header = f.read(8)
        if len(header) != 8:
            raise ValueError(f"{path}: ends before storage {key}")
        (count,) = struct.unpack("<q", header)
        _attach(storage, f.read(count * storage.dtype.itemsize), path, count)
    return obj


def _attach(storage: _Storage, raw: bytes, path: Path, count: int | None = None):
    count = storage.count if count is None else count
    if count != storage.count or len(raw) != count * storage.dtype.itemsize:
        raise ValueError(f"{path}: storage {storage.key} holds {len(raw)} bytes, expected {storage.count} "
                         f"elements of {storage.dtype.itemsize} bytes")
    storage.data = np.frombuffer(raw, dtype=storage.dtype)


def _tensors(obj, path: Path) -> dict[str, np.ndarray]:
    if not isinstance(obj, dict):
        raise ValueError(f"{path}: holds a {type(obj).__name__}, not a state dict")
    out = {}
    for name, value in obj.items():
        if not isinstance(value, _TensorRef):
            raise ValueError(f"{path}: entry {name!r} is not a tensor")
        out[str(name)] = value.array()
    return out
