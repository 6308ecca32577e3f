# makemore part 2 (Bengio-style MLP): contexts of 3 characters, train/dev/test splits after
# random.seed(42) + shuffle, an embedding table indexed as C[X], tanh hidden layer,
# F.cross_entropy, minibatches from torch.randint, a learning-rate sweep built with
# torch.linspace, a step decay, and 10 names sampled with a seeded torch.Generator.
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
print(itos)

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
    X = torch.tensor(X)
    Y = torch.tensor(Y)
    print(X.shape, Y.shape)
    return X, Y


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
