# The first cell of makemore parts 2 to 5: the imports, the names split into words, and the
# character vocabulary: chars (the 26 letters in order) and stoi, letter -> index, with index
# 0 for ".", the token that starts and ends every word.

import random

import torch
import torch.nn.functional as F

# prelude: _makemore_names.py
words = NAMES.split()
chars = sorted(list(set("".join(words))))
stoi = {s: i + 1 for i, s in enumerate(chars)}
stoi["."] = 0
