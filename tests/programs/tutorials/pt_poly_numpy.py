# Fit y = sin(x) with a cubic, gradients written by hand in NumPy (PyTorch "Learning with
# Examples", warm-up). NumPy's global generator is seeded here, so both sides draw the same.
import math

import numpy as np

np.random.seed(7)

xs = np.linspace(-math.pi, math.pi, 2000)
target = np.sin(xs)

# four coefficients, started at random
c0 = np.random.randn()
c1 = np.random.randn()
c2 = np.random.randn()
c3 = np.random.randn()
print("start:", c0, c1, c2, c3)

step_size = 1e-6
for step in range(2000):
    guess = c0 + c1 * xs + c2 * xs ** 2 + c3 * xs ** 3
    err = np.square(guess - target).sum()
    if step % 100 == 99:
        print(step, err)
    # d(err)/d(guess), then the chain rule for each coefficient
    d_guess = 2.0 * (guess - target)
    g0 = d_guess.sum()
    g1 = (d_guess * xs).sum()
    g2 = (d_guess * xs ** 2).sum()
    g3 = (d_guess * xs ** 3).sum()
    c0 -= step_size * g0
    c1 -= step_size * g1
    c2 -= step_size * g2
    c3 -= step_size * g3

print(f"Result: y = {c0} + {c1} x + {c2} x^2 + {c3} x^3")
