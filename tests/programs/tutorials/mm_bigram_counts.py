# makemore part 1, counting: bigram counts of a list of names in a 27x27 int32 tensor,
# normalised rows with keepdims=True, names sampled with torch.multinomial from a
# torch.Generator seeded 2147483647 (the samples must be PyTorch's, letter for letter),
# and the average negative log-likelihood of the data. An embedded list stands in for
# names.txt.
import torch

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
