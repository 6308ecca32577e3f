# d2l 2.2 (data preprocessing) without pandas or a file: the CSV is a string read with the
# csv module (os.path only builds the name it would have), missing values are filled with
# the column mean, the categorical column becomes indicator columns, and the table becomes
# a float64 tensor.
import csv
import io
import json
import os

data_file = os.path.join("..", "data", "house_tiny.csv")
print(os.path.basename(data_file), os.path.splitext(data_file)[1])

raw = """NumRooms,RoofType,Price
NA,NA,127500
2,NA,106000
4,Slate,178100
NA,NA,140000
3,Tile,152300
"""
rows = list(csv.DictReader(io.StringIO(raw)))
print(len(rows), rows[0])

rooms = [float(r["NumRooms"]) for r in rows if r["NumRooms"] != "NA"]
mean_rooms = sum(rooms) / len(rooms)
roof_types = sorted({r["RoofType"] for r in rows})
print(mean_rooms, roof_types)

features, targets = [], []
for r in rows:
    n = float(r["NumRooms"]) if r["NumRooms"] != "NA" else mean_rooms
    indicators = [1.0 if r["RoofType"] == kind else 0.0 for kind in roof_types]
    features.append([n] + indicators)
    targets.append(float(r["Price"]))
print(json.dumps({"columns": ["NumRooms"] + [f"RoofType_{k}" for k in roof_types]}))

import torch

X = torch.tensor(features, dtype=torch.float64)
y = torch.tensor(targets, dtype=torch.float64)
print(X)
print(y)
print(X.dtype, X.shape, X.mean(dim=0))
