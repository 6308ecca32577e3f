# The NLP tutorial's deep-learning page: Linear, ReLU and softmax on small tensors, then a
# bag-of-words logistic regression (Spanish or English) with log_softmax + NLLLoss and SGD,
# its log-probabilities before and after 100 epochs.
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim

torch.manual_seed(1)

lin = nn.Linear(5, 3)
data = torch.randn(2, 5)
print(lin(data))
data = torch.randn(2, 2)
print(data)
print(F.relu(data))
data = torch.randn(5)
print(data)
print(F.softmax(data, dim=0))
print(F.softmax(data, dim=0).sum())
print(F.log_softmax(data, dim=0))

train = [
    ("yo quiero pan con queso".split(), "SPANISH"),
    ("give it to me please".split(), "ENGLISH"),
    ("no creo que sea buena idea".split(), "SPANISH"),
    ("no it is not a good idea to go".split(), "ENGLISH"),
]
held_out = [
    ("yo creo que si".split(), "SPANISH"),
    ("it is lost on me".split(), "ENGLISH"),
]

word_to_ix = {}
for sentence, _ in train + held_out:
    for word in sentence:
        if word not in word_to_ix:
            word_to_ix[word] = len(word_to_ix)
print(len(word_to_ix), word_to_ix["creo"])
VOCAB_SIZE = len(word_to_ix)
NUM_LABELS = 2
label_to_ix = {"SPANISH": 0, "ENGLISH": 1}


class BagOfWords(nn.Module):
    def __init__(self, num_labels, vocab_size):
        super(BagOfWords, self).__init__()
        self.linear = nn.Linear(vocab_size, num_labels)

    def forward(self, bow_vec):
        return F.log_softmax(self.linear(bow_vec), dim=1)


def bow_vector(sentence):
    vec = torch.zeros(len(word_to_ix))
    for word in sentence:
        vec[word_to_ix[word]] += 1
    return vec.view(1, -1)


def target_of(label):
    return torch.LongTensor([label_to_ix[label]])


model = BagOfWords(NUM_LABELS, VOCAB_SIZE)
for param in model.parameters():
    print(param)

with torch.no_grad():
    for words, label in held_out:
        print(model(bow_vector(words)))
print(next(model.parameters())[:, word_to_ix["creo"]])

loss_function = nn.NLLLoss()
optimizer = optim.SGD(model.parameters(), lr=0.1)
for epoch in range(100):
    for words, label in train:
        model.zero_grad()
        log_probs = model(bow_vector(words))
        loss = loss_function(log_probs, target_of(label))
        loss.backward()
        optimizer.step()

with torch.no_grad():
    for words, label in held_out:
        print(model(bow_vector(words)))
print(next(model.parameters())[:, word_to_ix["creo"]])
