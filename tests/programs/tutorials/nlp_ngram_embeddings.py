# The word-embeddings page: an N-gram language model (two words of context) with
# nn.Embedding, a hidden Linear + ReLU, log_softmax and NLLLoss; total loss per epoch.
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim

torch.manual_seed(1)

CONTEXT_SIZE = 2
EMBEDDING_DIM = 10
verse = """The sea was calm tonight and the tide was full and the moon lay fair
upon the straits and on the coast the light gleams and is gone and the cliffs stand
glimmering and vast out in the tranquil bay""".split()

ngrams = [
    ([verse[i - j - 1] for j in range(CONTEXT_SIZE)], verse[i])
    for i in range(CONTEXT_SIZE, len(verse))
]
print(ngrams[:3])
vocab = sorted(set(verse))
word_to_ix = {word: i for i, word in enumerate(vocab)}
print(len(vocab))


class NGramLanguageModeler(nn.Module):
    def __init__(self, vocab_size, embedding_dim, context_size):
        super().__init__()
        self.embeddings = nn.Embedding(vocab_size, embedding_dim)
        self.linear1 = nn.Linear(context_size * embedding_dim, 128)
        self.linear2 = nn.Linear(128, vocab_size)

    def forward(self, inputs):
        embeds = self.embeddings(inputs).view((1, -1))
        out = F.relu(self.linear1(embeds))
        out = self.linear2(out)
        return F.log_softmax(out, dim=1)


losses = []
loss_function = nn.NLLLoss()
model = NGramLanguageModeler(len(vocab), EMBEDDING_DIM, CONTEXT_SIZE)
optimizer = optim.SGD(model.parameters(), lr=0.001)

for epoch in range(10):
    total_loss = 0
    for context, target in ngrams:
        context_idxs = torch.tensor([word_to_ix[w] for w in context], dtype=torch.long)
        model.zero_grad()
        log_probs = model(context_idxs)
        loss = loss_function(log_probs, torch.tensor([word_to_ix[target]], dtype=torch.long))
        loss.backward()
        optimizer.step()
        total_loss += loss.item()
    losses.append(total_loss)
print([round(l, 3) for l in losses])
print(model.embeddings.weight[word_to_ix["sea"]])
