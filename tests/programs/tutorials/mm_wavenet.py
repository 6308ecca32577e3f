# makemore part 5 (a WaveNet-like hierarchy): Embedding, FlattenConsecutive, Linear,
# BatchNorm1d over (0, 1) for 3-D inputs, Tanh and Sequential written as small classes;
# context of 8 characters fused two at a time; torch.manual_seed(42); shapes of every
# layer's output, training with minibatches from the global generator, the loss curve
# averaged with view(-1, 100).mean(1), eval mode, and samples.
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
random.seed(42)
random.shuffle(words)
block_size = 8


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


n1 = int(0.8 * len(words))
n2 = int(0.9 * len(words))
Xtr, Ytr = build_dataset(words[:n1])
Xdev, Ydev = build_dataset(words[n1:n2])
Xte, Yte = build_dataset(words[n2:])
for x, y in zip(Xtr[:6], Ytr[:6]):
    print("".join(itos[ix.item()] for ix in x), "-->", itos[y.item()])


class Linear:
    def __init__(self, fan_in, fan_out, bias=True):
        self.weight = torch.randn((fan_in, fan_out)) / fan_in ** 0.5
        self.bias = torch.zeros(fan_out) if bias else None

    def __call__(self, x):
        self.out = x @ self.weight
        if self.bias is not None:
            self.out += self.bias
        return self.out

    def parameters(self):
        return [self.weight] + ([] if self.bias is None else [self.bias])


class BatchNorm1d:
    def __init__(self, dim, eps=1e-5, momentum=0.1):
        self.eps = eps
        self.momentum = momentum
        self.training = True
        self.gamma = torch.ones(dim)
        self.beta = torch.zeros(dim)
        self.running_mean = torch.zeros(dim)
        self.running_var = torch.ones(dim)

    def __call__(self, x):
        if self.training:
            if x.ndim == 2:
                dim = 0
            elif x.ndim == 3:
                dim = (0, 1)
            xmean = x.mean(dim, keepdim=True)
            xvar = x.var(dim, keepdim=True)
        else:
            xmean = self.running_mean
            xvar = self.running_var
        xhat = (x - xmean) / torch.sqrt(xvar + self.eps)
        self.out = self.gamma * xhat + self.beta
        if self.training:
            with torch.no_grad():
                self.running_mean = (1 - self.momentum) * self.running_mean + self.momentum * xmean
                self.running_var = (1 - self.momentum) * self.running_var + self.momentum * xvar
        return self.out

    def parameters(self):
        return [self.gamma, self.beta]


class Tanh:
    def __call__(self, x):
        self.out = torch.tanh(x)
        return self.out

    def parameters(self):
        return []


class Embedding:
    def __init__(self, num_embeddings, embedding_dim):
        self.weight = torch.randn((num_embeddings, embedding_dim))

    def __call__(self, IX):
        self.out = self.weight[IX]
        return self.out

    def parameters(self):
        return [self.weight]


class FlattenConsecutive:
    def __init__(self, n):
        self.n = n

    def __call__(self, x):
        B, T, C = x.shape
        x = x.view(B, T // self.n, C * self.n)
        if x.shape[1] == 1:
            x = x.squeeze(1)
        self.out = x
        return self.out

    def parameters(self):
        return []


class Sequential:
    def __init__(self, layers):
        self.layers = layers

    def __call__(self, x):
        for layer in self.layers:
            x = layer(x)
        self.out = x
        return self.out

    def parameters(self):
        return [p for layer in self.layers for p in layer.parameters()]


torch.manual_seed(42)
n_embd = 24
n_hidden = 128
model = Sequential([
    Embedding(vocab_size, n_embd),
    FlattenConsecutive(2), Linear(n_embd * 2, n_hidden, bias=False), BatchNorm1d(n_hidden), Tanh(),
    FlattenConsecutive(2), Linear(n_hidden * 2, n_hidden, bias=False), BatchNorm1d(n_hidden), Tanh(),
    FlattenConsecutive(2), Linear(n_hidden * 2, n_hidden, bias=False), BatchNorm1d(n_hidden), Tanh(),
    Linear(n_hidden, vocab_size),
])
with torch.no_grad():
    model.layers[-1].weight *= 0.1
parameters = model.parameters()
print(sum(p.nelement() for p in parameters))
for p in parameters:
    p.requires_grad = True

ix = torch.randint(0, Xtr.shape[0], (4,))
Xb, Yb = Xtr[ix], Ytr[ix]
logits = model(Xb)
print(Xb.shape, logits.shape)
for layer in model.layers:
    print(layer.__class__.__name__, ":", tuple(layer.out.shape))

max_steps = 400
batch_size = 32
lossi = []
for i in range(max_steps):
    ix = torch.randint(0, Xtr.shape[0], (batch_size,))
    Xb, Yb = Xtr[ix], Ytr[ix]
    logits = model(Xb)
    loss = F.cross_entropy(logits, Yb)
    for p in parameters:
        p.grad = None
    loss.backward()
    lr = 0.1 if i < 300 else 0.01
    for p in parameters:
        p.data += -lr * p.grad
    if i % 100 == 0:
        print(f"{i:7d}/{max_steps:7d}: {loss.item():.2f}")
    lossi.append(loss.log10().item())

print([round(v, 1) for v in torch.tensor(lossi).view(-1, 100).mean(1).tolist()])

for layer in model.layers:
    layer.training = False


@torch.no_grad()
def split_loss(split):
    x, y = {"train": (Xtr, Ytr), "val": (Xdev, Ydev), "test": (Xte, Yte)}[split]
    logits = model(x)
    loss = F.cross_entropy(logits, y)
    print(split, f"{loss.item():.2f}")


split_loss("train")
split_loss("val")

for _ in range(5):
    out = []
    context = [0] * block_size
    while True:
        logits = model(torch.tensor([context]))
        probs = F.softmax(logits, dim=1)
        ix = torch.multinomial(probs, num_samples=1).item()
        context = context[1:] + [ix]
        out.append(ix)
        if ix == 0:
            break
    print("".join(itos[i] for i in out))
