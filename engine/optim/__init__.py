"""``torch.optim``: SGD (momentum, dampening, Nesterov, weight decay), Adam, AdamW, RMSprop,
Adagrad, Adadelta, Adamax, NAdam, RAdam and ASGD.

The update rules follow PyTorch's single-tensor implementations step for step, in the
parameters' dtype, with the roundings of PyTorch's AVX2/AVX-512 CPU kernels (``add(alpha=)``,
``addcmul`` and ``lerp`` are fused multiply-adds there). Fed the same gradients, Adam, AdamW,
RMSprop and Adagrad match PyTorch bit for bit where PyTorch's float32 ``sqrt`` (MKL's
``vsSqrt``, within 1 ulp) happens to be correctly rounded, as on MKL's AVX2 path; elsewhere
they differ by the last bits PyTorch itself changes from CPU to CPU: MKL rounds that sqrt
differently on Intel's AVX-512 path and on AMD's, and ATen's baseline kernels
(``ATEN_CPU_CAPABILITY=default``) round those multiply-adds twice. SGD's parameter update rounds
twice on purpose (see SGD.step). tests/tolerances.py bounds the differences.
"""

from engine.optim.adadelta import Adadelta
from engine.optim.adagrad import Adagrad
from engine.optim.adam import Adam
from engine.optim.adamax import Adamax
from engine.optim.adamw import AdamW
from engine.optim.asgd import ASGD
from engine.optim.lbfgs import LBFGS
from engine.optim.nadam import NAdam
from engine.optim.optimizer import Optimizer
from engine.optim.radam import RAdam
from engine.optim.rmsprop import RMSprop
from engine.optim.sgd import SGD

__all__ = [
    "ASGD",
    "SGD",
    "Adadelta",
    "Adagrad",
    "Adam",
    "AdamW",
    "Adamax",
    "LBFGS",
    "NAdam",
    "Optimizer",
    "RAdam",
    "RMSprop",
]
