# A character MLP with batch norm on a list of names, 20,000 steps (the pattern of makemore's
# third part: embedding table, Linear without bias, BatchNorm1d, tanh, a learning-rate step).
import random
import torch
import torch.nn.functional as F

words = """emma olivia ava isabella sophia charlotte mia amelia harper evelyn abigail emily
elizabeth mila ella avery sofia camila aria scarlett victoria madison luna grace chloe penelope
layla riley zoey nora lily eleanor hannah lillian addison aubrey ellie stella natalie zoe leah
hazel violet aurora savannah audrey brooklyn bella claire skylar lucy paisley everly anna
caroline nova genesis emilia kennedy samantha maya willow kinsley naomi aaliyah elena sarah
ariana allison gabriella alice madelyn cora ruby eva serenity autumn adeline hailey gianna
valentina isla eliana quinn nevaeh ivy sadie piper lydia alexa josephine emery julia delilah
arianna vivian kaylee sophie brielle madeline liam noah william james oliver benjamin elijah
lucas mason logan alexander ethan jacob michael daniel henry jackson sebastian aiden matthew
samuel david joseph carter owen wyatt john jack luke jayden dylan grayson levi isaac gabriel
julian mateo anthony jaxon lincoln joshua christopher andrew theodore caleb ryan asher nathan
thomas leo isaiah charles josiah hudson christian hunter connor eli ezra aaron landon adrian
jonathan nolan jeremiah easton elias colton cameron carson robert angel maverick nicholas
dominic jaxson greyson adam ian austin santiago jordan cooper brayden roman evan ezekiel""".split()
chars = sorted(set("".join(words)))
stoi = {s: i + 1 for i, s in enumerate(chars)}
stoi["."] = 0
vocab_size = len(stoi)
block_size = 3


def build_dataset(words):
    X, Y = [], []
    for w in words:
        context = [0] * block_size
        for ch in w + ".":
            ix = stoi[ch]
            X.append(context)
            Y.append(ix)
            context = context[1:] + [ix]
    return torch.tensor(X), torch.tensor(Y)


random.seed(42)
random.shuffle(words)
n1 = int(0.9 * len(words))
Xtr, Ytr = build_dataset(words[:n1])
Xdev, Ydev = build_dataset(words[n1:])

n_embd, n_hidden = 10, 64
g = torch.Generator().manual_seed(2147483647)
C = torch.randn((vocab_size, n_embd), generator=g)
W1 = torch.randn((n_embd * block_size, n_hidden), generator=g) * (5 / 3) / (n_embd * block_size) ** 0.5
W2 = torch.randn((n_hidden, vocab_size), generator=g) * 0.01
b2 = torch.randn(vocab_size, generator=g) * 0
bngain = torch.ones((1, n_hidden))
bnbias = torch.zeros((1, n_hidden))
bnmean_running = torch.zeros((1, n_hidden))
bnstd_running = torch.ones((1, n_hidden))
parameters = [C, W1, W2, b2, bngain, bnbias]
for p in parameters:
    p.requires_grad = True
print(sum(p.nelement() for p in parameters), "parameters")

max_steps, batch_size = 20000, 32
for i in range(max_steps):
    ix = torch.randint(0, Xtr.shape[0], (batch_size,), generator=g)
    Xb, Yb = Xtr[ix], Ytr[ix]
    emb = C[Xb]
    embcat = emb.view(emb.shape[0], -1)
    hpreact = embcat @ W1
    bnmeani = hpreact.mean(0, keepdim=True)
    bnstdi = hpreact.std(0, keepdim=True)
    hpreact = bngain * (hpreact - bnmeani) / bnstdi + bnbias
    with torch.no_grad():
        bnmean_running = 0.999 * bnmean_running + 0.001 * bnmeani
        bnstd_running = 0.999 * bnstd_running + 0.001 * bnstdi
    h = torch.tanh(hpreact)
    logits = h @ W2 + b2
    loss = F.cross_entropy(logits, Yb)
    for p in parameters:
        p.grad = None
    loss.backward()
    lr = 0.1 if i < 15000 else 0.01
    for p in parameters:
        p.data += -lr * p.grad
    if i % 2000 == 0:
        print(f"{i:7d}/{max_steps:7d}: {loss.item():.4f}")


@torch.no_grad()
def split_loss(X, Y):
    emb = C[X]
    hpreact = emb.view(emb.shape[0], -1) @ W1
    hpreact = bngain * (hpreact - bnmean_running) / bnstd_running + bnbias
    logits = torch.tanh(hpreact) @ W2 + b2
    return F.cross_entropy(logits, Y).item()


print(f"train {split_loss(Xtr, Ytr):.4f}")
print(f"dev {split_loss(Xdev, Ydev):.4f}")
