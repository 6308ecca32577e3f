# What stands in for Fashion-MNIST in d2l's chapters 3 to 5 (a download there): ten random
# 28x28 class templates, drawn from torch's global generator, and fake_fashion(count), which
# returns count images, each its class's template plus Gaussian noise of standard deviation
# 2, shaped (count, 1, 28, 28), with their labels. Expects torch.

templates = torch.randn(10, 28, 28)


def fake_fashion(count):
    y = torch.randint(0, 10, (count,))
    X = templates[y] + 2.0 * torch.randn(count, 28, 28)
    return X.reshape(count, 1, 28, 28), y
