"""``torch.backends.cudnn``: the flags lessons set; cuDNN itself is not used (CuPy is)."""

enabled = True
benchmark = False
deterministic = False
allow_tf32 = True


def is_available() -> bool:
    return False


def version() -> None:
    return None
