"""``torch.utils``: ``torch.utils.data`` (datasets, samplers, the DataLoader)."""

from engine.utils import data

__all__ = ["data"]
