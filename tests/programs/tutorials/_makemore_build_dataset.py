# build_dataset(words) as makemore parts 2 and 5 (MLP, WaveNet) write it: each word becomes
# contexts of block_size letter indices (X, block_size set before) and the letter that
# follows each (Y), returned as tensors after printing their shapes.

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
