"""``torch.backends.mps``: Apple's GPUs, never here."""


def is_available() -> bool:
    return False


def is_built() -> bool:
    return False
