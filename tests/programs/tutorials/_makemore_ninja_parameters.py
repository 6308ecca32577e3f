# makemore part 4's network as the lecture draws it (twice: for the checks by hand, then anew
# for training with the hand-written backward): the embedding C, the hidden layer W1, b1 (gain
# 5/3 for tanh over sqrt(fan_in)), the output layer W2, b2, small, from the generator g seeded
# 2147483647; the batchnorm gain and bias from torch's global generator; parameters lists them.
# Expects torch, vocab_size, block_size, n_embd and n_hidden.

g = torch.Generator().manual_seed(2147483647)
C = torch.randn((vocab_size, n_embd), generator=g)
W1 = torch.randn((n_embd * block_size, n_hidden), generator=g) * (5 / 3) / ((n_embd * block_size) ** 0.5)
b1 = torch.randn(n_hidden, generator=g) * 0.1
W2 = torch.randn((n_hidden, vocab_size), generator=g) * 0.1
b2 = torch.randn(vocab_size, generator=g) * 0.1
bngain = torch.randn((1, n_hidden)) * 0.1 + 1.0
bnbias = torch.randn((1, n_hidden)) * 0.1
parameters = [C, W1, b1, W2, b2, bngain, bnbias]
