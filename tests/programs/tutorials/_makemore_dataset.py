# Makemore parts 3 and 4 (batchnorm, backprop ninja) set up alike: the vocabulary (itos,
# index -> letter, and vocab_size), build_dataset(words), which turns words into contexts of
# block_size = 3 letter indices (X) and the letter that follows each (Y), and the words
# shuffled with random.seed(42). Each program then splits them its own way.

# prelude: _makemore_words.py
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
