# d2l 3.1's synthetic_data(w, b, num_examples), which the book saves to its d2l library and
# later sections call again: num_examples rows of standard normal features X and labels
# X @ w + b with Gaussian noise of standard deviation 0.01, as a column. Expects torch.

def synthetic_data(w, b, num_examples):
    X = torch.normal(0, 1, (num_examples, len(w)))
    y = torch.matmul(X, w) + b
    y += torch.normal(0, 0.01, y.shape)
    return X, y.reshape((-1, 1))
