# Anomaly detection as lessons use it: torch.autograd.detect_anomaly() around a healthy
# forward/backward, set_detect_anomaly both as a call and as a context manager, and the
# error it raises when a backward produces NaN (printed as Python shows the exception's
# type and first line).
import traceback

import torch

torch.manual_seed(53)
x = torch.randn(4, requires_grad=True)

with torch.autograd.detect_anomaly():
    y = (x.exp() * 2).sum()
    y.backward()
print(x.grad)
print(torch.is_anomaly_enabled())

with torch.autograd.set_detect_anomaly(True):
    print(torch.is_anomaly_enabled())
print(torch.is_anomaly_enabled())

torch.autograd.set_detect_anomaly(True)
print(torch.is_anomaly_enabled())
torch.autograd.set_detect_anomaly(False)
print(torch.is_anomaly_enabled())

z = torch.tensor([-1.0, 4.0], requires_grad=True)
with torch.autograd.detect_anomaly():
    try:
        r = torch.sqrt(z)
        print(r)
        r.sum().backward()
        print("no error")
    except RuntimeError as err:
        print(traceback.format_exception_only(type(err), err)[-1].strip().split("\n")[0])
print(torch.is_anomaly_enabled())

# without anomaly detection the NaN flows into the gradient silently
z.grad = None
torch.sqrt(z).sum().backward()
print(z.grad)
