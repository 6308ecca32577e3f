# makemore part 3, BatchNorm by hand: Kaiming-style scaled init, a batch-normalised hidden
# layer with running statistics updated under no_grad, minibatches drawn with a seeded
# generator, step decay, loss.log10() tracked, and evaluation in a @torch.no_grad()
# function using the running statistics; then the calibrated statistics compared.
import random

import torch
import torch.nn.functional as F

NAMES = """
emma olivia ava isabella sophia charlotte mia amelia harper evelyn abigail emily elizabeth
mila ella avery sofia camila aria scarlett victoria madison luna grace chloe penelope layla
riley zoey nora lily eleanor hannah lillian addison aubrey ellie stella natalie zoe leah hazel
violet aurora savannah audrey brooklyn bella claire skylar lucy paisley everly anna caroline
nova genesis emilia kennedy samantha maya willow kinsley naomi aaliyah elena sarah ariana
allison gabriella alice madelyn cora ruby eva serenity autumn adeline hailey gianna valentina
isla eliana quinn nevaeh ivy sadie piper lydia alexa josephine emery julia delilah arianna
vivian kaylee sophie brielle madeline noah liam william james oliver benjamin elijah lucas
mason logan alexander ethan jacob michael daniel henry jackson sebastian aiden matthew samuel
david joseph carter owen wyatt john jack luke jayden dylan grayson levi isaac gabriel julian
mateo anthony jaxon lincoln joshua christopher andrew theodore caleb ryan asher nathan thomas
leo isaiah charles josiah hudson christian hunter connor eli ezra aaron landon adrian jonathan
nolan jeremiah easton elias colton cameron carson robert angel maverick nicholas dominic
greyson adam ian austin santiago jordan cooper brayden roman evan ezekiel xavier jose jace
jameson leonardo bryson axel everett parker kayden miles sawyer jason declan weston micah
wesley luca vincent damian zachary silas gavin chase kai emmett harrison nathaniel kingston
cole tyler bennett bentley ryker tristan brandon kevin luis george ashton rowan braxton ryder
gael ivan diego maxwell max carlos juan maddox justin waylon calvin giovanni jonah abel jayce
amir king beau camden alex jasper malachi brody jude blake emmanuel eric brooks elliot antonio
abraham timothy finn rhett edward august xander alan dean lorenzo bryce karter victor milo
miguel hayden graham grant zion tucker jesse zayden joel richard patrick emiliano nicolas
dawson myles matteo river steven thiago zane matias judah jeremy preston oscar kaleb marcus
mark peter maximus barrett jax andres holden charlie knox kaden paxton kyrie kyle griffin
kenneth beckett enzo adriel arthur felix bryan lukas paul brian colt caden leon archer omar
"""
words = NAMES.split()
chars = sorted(list(set("".join(words))))
stoi = {s: i + 1 for i, s in enumerate(chars)}
stoi["."] = 0
itos = {i: s for s, i in stoi.items()}
vocab_size = len(itos)
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
n1 = int(0.8 * len(words))
n2 = int(0.9 * len(words))
Xtr, Ytr = build_dataset(words[:n1])
Xdev, Ydev = build_dataset(words[n1:n2])
Xte, Yte = build_dataset(words[n2:])

n_embd = 10
n_hidden = 200
g = torch.Generator().manual_seed(2147483647)
C = torch.randn((vocab_size, n_embd), generator=g)
W1 = torch.randn((n_embd * block_size, n_hidden), generator=g) * (5 / 3) / ((n_embd * block_size) ** 0.5)
W2 = torch.randn((n_hidden, vocab_size), generator=g) * 0.01
b2 = torch.randn(vocab_size, generator=g) * 0
bngain = torch.ones((1, n_hidden))
bnbias = torch.zeros((1, n_hidden))
bnmean_running = torch.zeros((1, n_hidden))
bnstd_running = torch.ones((1, n_hidden))
parameters = [C, W1, W2, b2, bngain, bnbias]
print(sum(p.nelement() for p in parameters))
for p in parameters:
    p.requires_grad = True

max_steps = 1500
batch_size = 32
lossi = []
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
    lr = 0.1 if i < 1000 else 0.01
    for p in parameters:
        p.data += -lr * p.grad
    if i % 300 == 0:
        print(f"{i:7d}/{max_steps:7d}: {loss.item():.2f}")
    lossi.append(loss.log10().item())

print(len(lossi), f"{sum(lossi[-100:]) / 100:.2f}")

with torch.no_grad():
    emb = C[Xtr]
    embcat = emb.view(emb.shape[0], -1)
    hpreact = embcat @ W1
    bnmean = hpreact.mean(0, keepdim=True)
    bnstd = hpreact.std(0, keepdim=True)
print(f"{(bnmean - bnmean_running).abs().max().item():.2f}", bnstd.shape)


@torch.no_grad()
def split_loss(split):
    x, y = {
        "train": (Xtr, Ytr),
        "val": (Xdev, Ydev),
        "test": (Xte, Yte),
    }[split]
    emb = C[x]
    embcat = emb.view(emb.shape[0], -1)
    hpreact = embcat @ W1
    hpreact = bngain * (hpreact - bnmean_running) / bnstd_running + bnbias
    h = torch.tanh(hpreact)
    logits = h @ W2 + b2
    loss = F.cross_entropy(logits, y)
    print(split, f"{loss.item():.3f}")


split_loss("train")
split_loss("val")
print(torch.is_grad_enabled(), W1.requires_grad)
