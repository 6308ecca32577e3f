"""Benchmarks (not tests): ratios against PyTorch and hand-written NumPy, medians."""
