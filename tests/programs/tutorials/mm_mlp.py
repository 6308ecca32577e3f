# makemore part 2 (Bengio-style MLP): contexts of 3 characters, train/dev/test splits after
# random.seed(42) + shuffle, an embedding table indexed as C[X], tanh hidden layer,
# F.cross_entropy, minibatches from torch.randint, a learning-rate sweep built with
# torch.linspace, a step decay, and 10 names sampled with a seeded torch.Generator.
# prelude: _makemore_words.py
itos = {i: s for s, i in stoi.items()}
print(itos)

block_size = 3


# prelude: _makemore_build_dataset.py


random.seed(42)
random.shuffle(words)
n1 = int(0.8 * len(words))
n2 = int(0.9 * len(words))
Xtr, Ytr = build_dataset(words[:n1])
Xdev, Ydev = build_dataset(words[n1:n2])
Xte, Yte = build_dataset(words[n2:])
print(Xtr.dtype, Xtr[:5])

g = torch.Generator().manual_seed(2147483647)
C = torch.randn((27, 10), generator=g)
W1 = torch.randn((30, 200), generator=g)
b1 = torch.randn(200, generator=g)
W2 = torch.randn((200, 27), generator=g)
b2 = torch.randn(27, generator=g)
parameters = [C, W1, b1, W2, b2]
print(sum(p.nelement() for p in parameters))
for p in parameters:
    p.requires_grad = True

emb = C[Xtr[:4]]
print(emb.shape, emb.view(-1, 30).shape)

lre = torch.linspace(-3, 0, 1000)
lrs = 10 ** lre
print(lrs[0].item(), lrs[-1].item(), lrs[500])

torch.manual_seed(2147483647)
lossi = []
stepi = []
for i in range(3000):
    ix = torch.randint(0, Xtr.shape[0], (32,))
    emb = C[Xtr[ix]]
    h = torch.tanh(emb.view(-1, 30) @ W1 + b1)
    logits = h @ W2 + b2
    loss = F.cross_entropy(logits, Ytr[ix])
    for p in parameters:
        p.grad = None
    loss.backward()
    lr = 0.1 if i < 2000 else 0.01
    for p in parameters:
        p.data += -lr * p.grad
    stepi.append(i)
    lossi.append(loss.log10().item())
    if i % 500 == 0:
        print(i, f"{loss.item():.2f}")

with torch.no_grad():
    for name, (X, Y) in {"train": (Xtr, Ytr), "dev": (Xdev, Ydev)}.items():
        emb = C[X]
        h = torch.tanh(emb.view(-1, 30) @ W1 + b1)
        loss = F.cross_entropy(h @ W2 + b2, Y)
        print(name, f"{loss.item():.3f}")

context = [0] * block_size
print(C[torch.tensor([context])].shape)

g = torch.Generator().manual_seed(2147483647 + 10)
for _ in range(10):
    out = []
    context = [0] * block_size
    while True:
        emb = C[torch.tensor([context])]
        h = torch.tanh(emb.view(1, -1) @ W1 + b1)
        logits = h @ W2 + b2
        probs = F.softmax(logits, dim=1)
        ix = torch.multinomial(probs, num_samples=1, generator=g).item()
        context = context[1:] + [ix]
        out.append(ix)
        if ix == 0:
            break
    print("".join(itos[i] for i in out))
