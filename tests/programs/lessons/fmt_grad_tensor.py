import torch
w = torch.tensor(1.23456, requires_grad=True)
loss = w * 2
print(f"{loss:.3f}", f"{loss}", "{:.2f}".format(loss))
print(f"{w.grad}")
loss.backward()
print(f"grad={w.grad:.2f}", f"{w.grad.item():+.3e}")
print(f"{torch.tensor(5):>4}|{torch.tensor(2.5):8.2f}|")
