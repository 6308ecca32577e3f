# How lessons change tensor printing: torch.set_printoptions with precision, sci_mode,
# linewidth, threshold and edgeitems, and the reset to the default profile.
import torch

torch.manual_seed(52)
t = torch.randn(3, 4) * 1000
small = torch.tensor([1e-5, 2.5e-4, 1.0])
print(t)
print(small)

torch.set_printoptions(precision=2)
print(t)
print(torch.tensor([3.14159, 2.71828]))

torch.set_printoptions(sci_mode=False)
print(small)
torch.set_printoptions(sci_mode=True)
print(torch.tensor([1.5, 250.0]))

torch.set_printoptions(precision=3, sci_mode=False, linewidth=40)
print(torch.linspace(0, 1, 12))

torch.set_printoptions(threshold=10, edgeitems=2)
print(torch.arange(100.0))
print(torch.arange(60).reshape(6, 10))

torch.set_printoptions(profile="full")
print(torch.arange(30))

torch.set_printoptions(profile="default")
print(t)
print(torch.arange(2000.0))
