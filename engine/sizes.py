"""``torch.Size`` and ``torch.return_types``: the tuples the engine returns for shapes and for
named results (``values, indices = x.max(dim=1)``)."""

from __future__ import annotations

from typing import Any

Tensor = Any  # (what a named result holds; this layer knows no Tensor)


class Size(tuple):  # type: ignore[type-arg]
    """torch.Size: a tuple that prints as ``torch.Size([2, 3])``."""

    def __repr__(self) -> str:
        return f"torch.Size([{', '.join(str(s) for s in self)}])"

    __str__ = __repr__

    def numel(self) -> int:
        n = 1
        for s in self:
            n *= s
        return n

    # Slices, sums and repeats of a Size are Sizes, as in PyTorch (tuple's would be tuples).
    def __getitem__(self, key: Any) -> Any:
        item = tuple.__getitem__(self, key)
        return Size(item) if isinstance(key, slice) else item

    def __add__(self, other: Any) -> Size:  # type: ignore[override]
        if not isinstance(other, tuple):
            return NotImplemented
        return Size(tuple(self) + tuple(other))

    def __radd__(self, other: Any) -> Size:
        if not isinstance(other, tuple):
            return NotImplemented
        return Size(tuple(other) + tuple(self))

    def __mul__(self, n: Any) -> Size:  # type: ignore[override]
        return Size(tuple(self) * n)

    __rmul__ = __mul__  # type: ignore[assignment]


class _ReturnTypes(tuple):  # type: ignore[type-arg]
    """Named results (``torch.return_types.max(values=..., indices=...)``): a 2-tuple."""

    kind: str

    def __new__(cls, kind: str, values: Tensor, indices: Tensor) -> _ReturnTypes:
        obj = tuple.__new__(cls, (values, indices))
        obj.kind = kind
        return obj

    @property
    def values(self) -> Tensor:
        return self[0]  # type: ignore[no-any-return]

    @property
    def indices(self) -> Tensor:
        return self[1]  # type: ignore[no-any-return]

    def __repr__(self) -> str:
        return f"torch.return_types.{self.kind}(\nvalues={self[0]!r},\nindices={self[1]!r})"

    __str__ = __repr__
