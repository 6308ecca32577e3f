"""``torch.backends.mkl``: the playground computes with NumPy, not MKL."""


def is_available() -> bool:
    return False
