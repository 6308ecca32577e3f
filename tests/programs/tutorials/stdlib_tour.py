# What learners import around a training script: os and pathlib to name files, csv and
# json for small tables and configs, time to measure (never printed), traceback to show
# an error, collections, itertools, functools, typing, dataclasses, math and random;
# an OrderedDict of layers for nn.Sequential.
import collections
import csv
import dataclasses
import functools
import io
import itertools
import json
import math
import os
import pathlib
import random
import time
import traceback
from collections import Counter, OrderedDict, defaultdict
from typing import Dict, List, Tuple

import torch
from torch import nn


@dataclasses.dataclass
class TrainConfig:
    lr: float = 0.05
    epochs: int = 40
    hidden: int = 8
    seed: int = 58
    tags: List[str] = dataclasses.field(default_factory=lambda: ["demo", "xor"])


config = TrainConfig()
print(config)
print(json.dumps(dataclasses.asdict(config), sort_keys=True))
print(json.loads('{"lr": 0.1}')["lr"])

run_dir = pathlib.Path("runs") / f"seed{config.seed}"
print(run_dir, run_dir.name, run_dir.parent, run_dir.suffix == "", (run_dir / "ckpt.pt").suffix)
print(os.path.join("runs", "a", "b.csv"), os.path.splitext("b.csv"), os.sep == "/", os.path.basename("x/y.txt"))

table = "x1,x2,label\n0,0,0\n0,1,1\n1,0,1\n1,1,0\n"
rows = list(csv.reader(io.StringIO(table)))
header, body = rows[0], rows[1:]
print(header, len(body))
X = torch.tensor([[float(a), float(b)] for a, b, _ in body])
y = torch.tensor([[float(c)] for _, _, c in body])

random.seed(config.seed)
torch.manual_seed(config.seed)
model = nn.Sequential(OrderedDict([
    ("hidden", nn.Linear(2, config.hidden)),
    ("act", nn.Tanh()),
    ("out", nn.Linear(config.hidden, 1)),
]))
print(model)
optimizer = torch.optim.Adam(model.parameters(), lr=config.lr)

history: Dict[str, List[float]] = defaultdict(list)
start = time.perf_counter()
for epoch in range(config.epochs):
    loss = nn.functional.binary_cross_entropy_with_logits(model(X), y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    history["loss"].append(loss.item())
elapsed = time.perf_counter() - start
print(elapsed >= 0, time.time() > 1e9)
print([f"{v:.3f}" for v in itertools.islice(history["loss"], 0, None, 10)])
best: Tuple[int, float] = min(enumerate(history["loss"]), key=lambda kv: kv[1])
print(best[0], f"{best[1]:.3f}")

preds = (torch.sigmoid(model(X)) > 0.5).int().flatten().tolist()
print(preds, Counter(preds), collections.Counter(int(v) for v in y.flatten()))
total_params = functools.reduce(lambda acc, p: acc + p.numel(), model.parameters(), 0)
print(total_params, math.prod(model.hidden.weight.shape), sum(itertools.chain([1, 2], [3])))
scale = functools.partial(torch.mul, torch.tensor(2.0))
print(scale(torch.ones(2)))

try:
    model(torch.ones(3))
except RuntimeError as exc:
    print(traceback.format_exception_only(type(exc), exc)[-1].strip().split("\n")[0])
pairs = list(itertools.product([0, 1], repeat=2))
print(pairs, list(itertools.accumulate([1, 2, 3])), random.choice(["a", "b", "c"]))
