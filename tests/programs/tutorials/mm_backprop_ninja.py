# makemore part 4, backprop by hand: a forward pass cut into small steps, every
# intermediate kept with retain_grad, the gradient of each written by hand and compared with
# autograd's (cmp); the cross-entropy backward in one line (dlogits[range(n), Yb] -= 1);
# the batchnorm backward in one line; then training with the hand-written backward
# under torch.no_grad().
# prelude: _makemore_dataset.py
n1 = int(0.9 * len(words))
Xtr, Ytr = build_dataset(words[:n1])
Xdev, Ydev = build_dataset(words[n1:])


def cmp(s, dt, t):
    app = torch.allclose(dt, t.grad)
    maxdiff = (dt - t.grad).abs().max().item()
    print(f"{s:15s} | approximate: {str(app):5s} | maxdiff below 1e-6: {maxdiff < 1e-6}")


torch.manual_seed(2147483647)  # bngain and bnbias come from the global generator
n_embd = 10
n_hidden = 64
# prelude: _makemore_ninja_parameters.py
print(sum(p.nelement() for p in parameters))
for p in parameters:
    p.requires_grad = True

batch_size = 32
n = batch_size
ix = torch.randint(0, Xtr.shape[0], (batch_size,), generator=g)
Xb, Yb = Xtr[ix], Ytr[ix]

emb = C[Xb]
embcat = emb.view(emb.shape[0], -1)
hprebn = embcat @ W1 + b1
bnmeani = 1 / n * hprebn.sum(0, keepdim=True)
bndiff = hprebn - bnmeani
bndiff2 = bndiff ** 2
bnvar = 1 / (n - 1) * (bndiff2).sum(0, keepdim=True)
bnvar_inv = (bnvar + 1e-5) ** -0.5
bnraw = bndiff * bnvar_inv
hpreact = bngain * bnraw + bnbias
h = torch.tanh(hpreact)
logits = h @ W2 + b2
logit_maxes = logits.max(1, keepdim=True).values
norm_logits = logits - logit_maxes
counts = norm_logits.exp()
counts_sum = counts.sum(1, keepdims=True)
counts_sum_inv = counts_sum ** -1
probs = counts * counts_sum_inv
logprobs = probs.log()
loss = -logprobs[range(n), Yb].mean()

for p in parameters:
    p.grad = None
for t in [logprobs, probs, counts, counts_sum, counts_sum_inv, norm_logits, logit_maxes,
          logits, h, hpreact, bnraw, bnvar_inv, bnvar, bndiff2, bndiff, hprebn, bnmeani,
          embcat, emb]:
    t.retain_grad()
loss.backward()
print(f"{loss.item():.4f}")

dlogprobs = torch.zeros_like(logprobs)
dlogprobs[range(n), Yb] = -1.0 / n
dprobs = (1.0 / probs) * dlogprobs
dcounts_sum_inv = (counts * dprobs).sum(1, keepdim=True)
dcounts = counts_sum_inv * dprobs
dcounts_sum = (-counts_sum ** -2) * dcounts_sum_inv
dcounts += torch.ones_like(counts) * dcounts_sum
dnorm_logits = counts * dcounts
dlogits = dnorm_logits.clone()
dlogit_maxes = (-dnorm_logits).sum(1, keepdim=True)
dlogits += F.one_hot(logits.max(1).indices, num_classes=logits.shape[1]) * dlogit_maxes
dh = dlogits @ W2.T
dW2 = h.T @ dlogits
db2 = dlogits.sum(0)
dhpreact = (1.0 - h ** 2) * dh
dbngain = (bnraw * dhpreact).sum(0, keepdim=True)
dbnraw = bngain * dhpreact
dbnbias = dhpreact.sum(0, keepdim=True)
dbndiff = bnvar_inv * dbnraw
dbnvar_inv = (bndiff * dbnraw).sum(0, keepdim=True)
dbnvar = (-0.5 * (bnvar + 1e-5) ** -1.5) * dbnvar_inv
dbndiff2 = (1.0 / (n - 1)) * torch.ones_like(bndiff2) * dbnvar
dbndiff += (2 * bndiff) * dbndiff2
dhprebn = dbndiff.clone()
dbnmeani = (-dbndiff).sum(0)
dhprebn += 1.0 / n * (torch.ones_like(hprebn) * dbnmeani)
dembcat = dhprebn @ W1.T
dW1 = embcat.T @ dhprebn
db1 = dhprebn.sum(0)
demb = dembcat.view(emb.shape)
dC = torch.zeros_like(C)
for k in range(Xb.shape[0]):
    for j in range(Xb.shape[1]):
        ix = Xb[k, j]
        dC[ix] += demb[k, j]

for name, dt, t in [("logprobs", dlogprobs, logprobs), ("probs", dprobs, probs),
                    ("counts_sum_inv", dcounts_sum_inv, counts_sum_inv),
                    ("counts_sum", dcounts_sum, counts_sum), ("counts", dcounts, counts),
                    ("norm_logits", dnorm_logits, norm_logits),
                    ("logit_maxes", dlogit_maxes, logit_maxes), ("logits", dlogits, logits),
                    ("h", dh, h), ("W2", dW2, W2), ("b2", db2, b2), ("hpreact", dhpreact, hpreact),
                    ("bngain", dbngain, bngain), ("bnbias", dbnbias, bnbias), ("bnraw", dbnraw, bnraw),
                    ("bnvar_inv", dbnvar_inv, bnvar_inv), ("bnvar", dbnvar, bnvar),
                    ("bndiff2", dbndiff2, bndiff2), ("bndiff", dbndiff, bndiff),
                    ("bnmeani", dbnmeani, bnmeani), ("hprebn", dhprebn, hprebn),
                    ("embcat", dembcat, embcat), ("W1", dW1, W1), ("b1", db1, b1),
                    ("emb", demb, emb), ("C", dC, C)]:
    cmp(name, dt, t)

loss_fast = F.cross_entropy(logits, Yb)
print(f"{loss_fast.item():.4f}", "diff below 1e-6:", abs((loss_fast - loss).item()) < 1e-6)

dlogits = F.softmax(logits, 1)
dlogits[range(n), Yb] -= 1
dlogits /= n
cmp("logits", dlogits, logits)
print(f"{dlogits[0].sum().item():.1e}" if abs(dlogits[0].sum().item()) > 1e-7 else "row sums to ~0")

hpreact_fast = bngain * (hprebn - hprebn.mean(0, keepdim=True)) / torch.sqrt(hprebn.var(0, keepdim=True, unbiased=True) + 1e-5) + bnbias
print("max diff below 1e-5:", (hpreact_fast - hpreact).abs().max().item() < 1e-5)
dhprebn = bngain * bnvar_inv / n * (n * dhpreact - dhpreact.sum(0) - n / (n - 1) * bnraw * (dhpreact * bnraw).sum(0))
cmp("hprebn", dhprebn, hprebn)

# exercise 4: train with the hand-written backward
n_hidden = 200
# prelude: _makemore_ninja_parameters.py
for p in parameters:
    p.requires_grad = True

with torch.no_grad():
    for i in range(400):
        ix = torch.randint(0, Xtr.shape[0], (batch_size,), generator=g)
        Xb, Yb = Xtr[ix], Ytr[ix]
        emb = C[Xb]
        embcat = emb.view(emb.shape[0], -1)
        hprebn = embcat @ W1 + b1
        bnmean = hprebn.mean(0, keepdim=True)
        bnvar = hprebn.var(0, keepdim=True, unbiased=True)
        bnvar_inv = (bnvar + 1e-5) ** -0.5
        bnraw = (hprebn - bnmean) * bnvar_inv
        hpreact = bngain * bnraw + bnbias
        h = torch.tanh(hpreact)
        logits = h @ W2 + b2
        loss = F.cross_entropy(logits, Yb)

        dlogits = F.softmax(logits, 1)
        dlogits[range(n), Yb] -= 1
        dlogits /= n
        dh = dlogits @ W2.T
        dW2 = h.T @ dlogits
        db2 = dlogits.sum(0)
        dhpreact = (1.0 - h ** 2) * dh
        dbngain = (bnraw * dhpreact).sum(0, keepdim=True)
        dbnbias = dhpreact.sum(0, keepdim=True)
        dhprebn = bngain * bnvar_inv / n * (n * dhpreact - dhpreact.sum(0) - n / (n - 1) * bnraw * (dhpreact * bnraw).sum(0))
        dembcat = dhprebn @ W1.T
        dW1 = embcat.T @ dhprebn
        db1 = dhprebn.sum(0)
        demb = dembcat.view(emb.shape)
        dC = torch.zeros_like(C)
        for k in range(Xb.shape[0]):
            for j in range(Xb.shape[1]):
                dC[Xb[k, j]] += demb[k, j]
        grads = [dC, dW1, db1, dW2, db2, dbngain, dbnbias]
        lr = 0.1
        for p, grad in zip(parameters, grads):
            p.data += -lr * grad
        if i % 100 == 0:
            print(f"{i:7d}/{400:7d}: {loss.item():.2f}")
print(p.grad is None, torch.is_grad_enabled())
