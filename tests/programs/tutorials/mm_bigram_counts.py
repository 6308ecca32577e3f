# makemore part 1, counting: bigram counts of a list of names in a 27x27 int32 tensor,
# normalised rows with keepdims=True, names sampled with torch.multinomial from a
# torch.Generator seeded 2147483647 (the samples must be PyTorch's, letter for letter),
# and the average negative log-likelihood of the data. An embedded list stands in for
# names.txt.
import torch

# prelude: _makemore_names.py
words = NAMES.split()
print(words[:8], len(words))
print(min(len(w) for w in words), max(len(w) for w in words))

counts = {}
for w in words:
    chs = ["<S>"] + list(w) + ["<E>"]
    for ch1, ch2 in zip(chs, chs[1:]):
        counts[(ch1, ch2)] = counts.get((ch1, ch2), 0) + 1
print(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:6])

N = torch.zeros((27, 27), dtype=torch.int32)
chars = sorted(list(set("".join(words))))
stoi = {s: i + 1 for i, s in enumerate(chars)}
stoi["."] = 0
itos = {i: s for s, i in stoi.items()}

for w in words:
    chs = ["."] + list(w) + ["."]
    for ch1, ch2 in zip(chs, chs[1:]):
        N[stoi[ch1], stoi[ch2]] += 1
print(N[0])
print(N.dtype, N.sum().item(), N[stoi["a"], stoi["n"]].item())

p = N[0].float()
p = p / p.sum()
print(p)

g = torch.Generator().manual_seed(2147483647)
ix = torch.multinomial(p, num_samples=1, replacement=True, generator=g).item()
print(itos[ix])

g = torch.Generator().manual_seed(2147483647)
p = torch.rand(3, generator=g)
p = p / p.sum()
print(p)
print(torch.multinomial(p, num_samples=100, replacement=True, generator=g))

P = (N + 1).float()
P /= P.sum(1, keepdims=True)
print(P.shape, P.sum(1, keepdim=True).shape, P[0].sum())

g = torch.Generator().manual_seed(2147483647)
for i in range(10):
    out = []
    ix = 0
    while True:
        p = P[ix]
        ix = torch.multinomial(p, num_samples=1, replacement=True, generator=g).item()
        out.append(itos[ix])
        if ix == 0:
            break
    print("".join(out))

log_likelihood = 0.0
n = 0
for w in words:
    chs = ["."] + list(w) + ["."]
    for ch1, ch2 in zip(chs, chs[1:]):
        prob = P[stoi[ch1], stoi[ch2]]
        logprob = torch.log(prob)
        log_likelihood += logprob
        n += 1
print(f"{log_likelihood=}")
nll = -log_likelihood
print(f"{nll=}")
print(f"{nll/n}")
