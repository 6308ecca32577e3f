"""``torch.backends``: which accelerators and libraries are available (the playground runs on
NumPy, or CuPy for CUDA), and the flags lessons set (``cudnn.deterministic``)."""

from engine.backends import cudnn, mkl, mps, openmp

__all__ = ["cudnn", "mkl", "mps", "openmp"]
