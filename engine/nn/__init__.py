"""``torch.nn``."""

from engine.nn import functional, init
from engine.nn.modules import (
    BCELoss,
    BCEWithLogitsLoss,
    CrossEntropyLoss,
    Flatten,
    Identity,
    L1Loss,
    LeakyReLU,
    Linear,
    LogSoftmax,
    Module,
    ModuleList,
    MSELoss,
    NLLLoss,
    Parameter,
    ReLU,
    Sequential,
    Sigmoid,
    Softmax,
    Tanh,
)

__all__ = [
    "BCELoss", "BCEWithLogitsLoss", "CrossEntropyLoss", "Flatten", "Identity", "L1Loss",
    "LeakyReLU", "Linear", "LogSoftmax", "MSELoss", "Module", "ModuleList", "NLLLoss",
    "Parameter", "ReLU", "Sequential", "Sigmoid", "Softmax", "Tanh", "functional", "init",
]
