"""torch.Generator and every sampler that takes it draw PyTorch's CPU streams (issue 18):
the same seed gives the same numbers, and the streams stay aligned afterwards.

Integer results (indices, permutations, Bernoulli draws) and uniform floats are compared
exactly: they are integer arithmetic on mt19937's output, or one exact scaling of it, the same
on every CPU. Transformed floats (exponential, normal) go through a library ``log``/``log1p``
on each side, so they carry LIBRARY_FUNCTION roundings (tests/tolerances.py)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import engine
from tests.tolerances import LIBRARY_FUNCTION, close

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.torch


def both(fn: Any) -> tuple[Any, Any]:
    """fn(lib) on the engine and on PyTorch, as NumPy arrays (or lists of them)."""

    def plain(x: Any) -> Any:
        if isinstance(x, list | tuple):
            return [plain(v) for v in x]
        return x.detach().numpy() if hasattr(x, "detach") else x

    return plain(fn(engine)), plain(fn(torch))


def test_generator_objects_give_the_default_streams_and_keep_their_own() -> None:
    def run(T: Any) -> list[Any]:
        g = T.Generator().manual_seed(2147483647)
        T.manual_seed(3)
        out = [T.rand(4, generator=g), T.randn(3), T.randn(20, generator=g), T.rand(2)]
        out += [T.randint(0, 27, (6,), generator=g), T.randperm(9, generator=g)]
        out += [T.randint(low=2, high=5, size=(3,)), T.rand(size=(2, 2), generator=g)]
        out.append(T.tensor([float(g.initial_seed())]))
        return out

    ours, theirs = both(run)
    for a, b in zip(ours, theirs, strict=True):
        # randn: Box-Muller's log, sqrt and cos/sin on each side, relative to the radius (a
        # value near a zero of cos errs at the radius's scale, not its own)
        np.testing.assert_allclose(a, b, **close(LIBRARY_FUNCTION, scale=float(np.abs(b).max())))


def test_multinomial_is_atens_on_both_paths() -> None:
    rng = np.random.default_rng(0)
    for trial in range(60):
        rows, k = int(rng.integers(1, 4)), int(rng.integers(2, 30))
        probs = rng.random((rows, k)).astype(np.float32 if trial % 2 else np.float64)
        probs[rng.random((rows, k)) < 0.2] = 0
        probs[:, 0] += 0.05
        replacement = trial % 3 != 0
        # without replacement, at most as many samples as categories that can be drawn: past
        # them PyTorch's topk orders the tied zero-probability ones its own way
        nonzero = int((probs > 0).sum(axis=1).min())
        n = int(rng.integers(1, 40 if replacement else nonzero + 1))
        seed = int(rng.integers(0, 2**31))

        def draw(
            T: Any, probs: Any = probs, n: int = n, r: bool = replacement, s: int = seed
        ) -> Any:
            g = T.Generator().manual_seed(s)
            first = T.multinomial(T.tensor(probs), n, replacement=r, generator=g)
            after = T.rand(3, generator=g)  # the stream stays aligned
            return [first, after, T.tensor(probs[0]).multinomial(1, generator=g)]

        ours, theirs = both(draw)
        np.testing.assert_array_equal(ours[0], theirs[0])
        np.testing.assert_array_equal(ours[1], theirs[1])
        np.testing.assert_array_equal(ours[2], theirs[2])


def test_makemore_bigram_sampler_prints_the_lectures_names() -> None:
    """The lecture's loop: a seeded Generator, multinomial of a row of probabilities, one
    sample at a time, until the end token."""
    rng = np.random.default_rng(1)
    counts = rng.integers(0, 50, size=(27, 27)).astype(np.float32) + 1

    def sample(T: Any) -> list[str]:
        g = T.Generator().manual_seed(2147483647)
        P = T.tensor(counts)
        P = P / P.sum(1, keepdims=True)
        names = []
        for _ in range(8):
            out, ix = [], 0
            while True:
                ix = T.multinomial(P[ix], num_samples=1, replacement=True, generator=g).item()
                if ix == 0:
                    break
                out.append(chr(ord("a") + ix - 1))
            names.append("".join(out))
        return names

    assert sample(engine) == sample(torch)


def test_bernoulli_exponential_normal_and_dropout() -> None:
    def run(T: Any) -> list[Any]:
        g = T.Generator().manual_seed(11)
        T.manual_seed(5)
        out = [
            T.bernoulli(T.full((10,), 0.3), generator=g),
            T.bernoulli(T.rand(7, dtype=T.float64), generator=g),
            T.ones(12).bernoulli_(0.6, generator=g),
            T.nn.functional.dropout(T.ones(40), 0.25),
            T.nn.Dropout(0.5)(T.ones(3, 5)),
            T.empty(6).exponential_(generator=g),
            T.normal(0.0, 0.01, size=(5, 1), generator=g),
            T.normal(T.zeros(4), T.ones(4) * 2, generator=g),
            T.normal(T.ones(20), 0.5),
            T.normal(1.0, T.ones(3)),
            T.empty(3, 3).normal_(2.0, 0.5, generator=g),
            T.empty(5).uniform_(-1, 1, generator=g),
            T.empty(4, dtype=T.int64).random_(0, 10, generator=g),
        ]
        return out

    ours, theirs = both(run)
    for a, b in zip(ours, theirs, strict=True):
        # exponential's log1p, normal's Box-Muller (scaled by std, shifted by mean): library
        # functions on each side, at the scale of the largest value
        np.testing.assert_allclose(a, b, **close(LIBRARY_FUNCTION, scale=float(np.abs(b).max())))


def test_state_round_trips_and_has_pytorchs_length() -> None:
    g = engine.Generator().manual_seed(7)
    engine.randn(5, generator=g)  # leave a cached normal in the state
    state = g.get_state()
    assert tuple(state.shape) == tuple(torch.Generator().get_state().shape)
    first = engine.randn(3, generator=g)
    g.set_state(state)
    np.testing.assert_array_equal(engine.randn(3, generator=g).numpy(), first.numpy())
    s = engine.get_rng_state()
    a = engine.rand(4)
    engine.set_rng_state(s)
    np.testing.assert_array_equal(engine.rand(4).numpy(), a.numpy())


def test_dataloader_shuffles_and_splits_as_pytorch_and_keeps_the_stream() -> None:
    def run(T: Any) -> list[Any]:
        data = T.utils.data
        T.manual_seed(0)
        X = T.arange(40.0).reshape(20, 2)
        y = T.arange(20)
        ds = data.TensorDataset(X, y)
        out: list[Any] = []
        for _ in range(2):  # two epochs: a fresh permutation each
            out += [yb for _, yb in data.DataLoader(ds, batch_size=6, shuffle=True)]
        g = T.Generator().manual_seed(42)
        out += [
            yb
            for _, yb in data.DataLoader(
                ds, batch_size=7, shuffle=True, generator=g, drop_last=True
            )
        ]
        train, test = data.random_split(ds, [0.75, 0.25], generator=T.Generator().manual_seed(1))
        out += [T.tensor(list(train.indices)), T.tensor(list(test.indices))]
        a, b = data.random_split(range(10), [7, 3])
        out += [T.tensor(list(a)), T.tensor(list(b))]
        out.append(T.rand(3))  # the default stream after all of it
        return out

    ours, theirs = both(run)
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs, strict=True):
        np.testing.assert_array_equal(a, b)


def test_default_collate_and_loader_shapes() -> None:
    def run(T: Any) -> list[Any]:
        data = T.utils.data

        class Pairs(data.Dataset):
            def __len__(self) -> int:
                return 5

            def __getitem__(self, i: int) -> Any:
                return {"x": T.full((2,), float(i)), "n": i, "f": i / 2}, [i, i * 2]

        loader = data.DataLoader(Pairs(), batch_size=2)
        out: list[Any] = [len(loader)]
        for batch, pair in loader:
            out += [batch["x"], batch["n"], batch["f"], pair[0], pair[1]]
        out.append([x for x in data.DataLoader(list(range(5)), batch_size=None)])
        return out

    ours, theirs = both(run)
    assert ours[0] == theirs[0]
    for a, b in zip(ours[1:-1], theirs[1:-1], strict=True):
        assert np.asarray(a).dtype == np.asarray(b).dtype
        np.testing.assert_array_equal(a, b)
    assert [int(v) for v in ours[-1]] == [int(v) for v in theirs[-1]]


@pytest.mark.parametrize(
    ("call", "name"),
    [
        (lambda: engine.rand(2, foo=1), "rand"),
        (lambda: engine.randn(2, foo=1), "randn"),
        (lambda: engine.zeros(2, foo=1), "zeros"),
        (lambda: engine.empty(2, foo=1), "empty"),
        (lambda: engine.rand_like(engine.ones(1), foo=1), "rand_like"),
        (lambda: engine.zeros_like(engine.ones(1), generator=None), "zeros_like"),
        (lambda: engine.ones(1).new_zeros(2, foo=1), "new_zeros"),
        (lambda: engine.nn.init.kaiming_normal_(engine.ones(2, 2), foo=1), "kaiming_normal_"),
        (lambda: engine.nn.functional.max_pool1d(engine.ones(1, 1, 2), foo=1), "max_pool1d"),
        (lambda: engine.nn.functional.conv2d(engine.ones(1, 1, 2, 2), x=1), "conv2d"),
    ],
)
def test_factories_built_from_one_signature_name_themselves_in_errors(call: Any, name: str) -> None:
    """The functions made by one builder each (rand/randn, the *_like, conv1d/2d ...) are named
    as PyTorch names them: a wrong keyword says which function refused it (PyTorch's own
    message for its native functions differs: "received an invalid combination")."""
    with pytest.raises(TypeError, match=rf"^{name}\(\) got an unexpected keyword argument"):
        call()
