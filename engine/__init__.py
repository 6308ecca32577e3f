"""A small autograd engine with PyTorch's API and semantics, on NumPy (CPU) or CuPy (GPU)."""
