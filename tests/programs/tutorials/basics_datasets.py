# "Learn the Basics", datasets and dataloaders: a map-style Dataset subclass over synthetic
# 28x28 images, a DataLoader with batch_size / shuffle (seeded generator) / drop_last,
# next(iter(...)), len of loader and dataset, TensorDataset and random_split.
import torch
from torch.utils.data import DataLoader, Dataset, TensorDataset, random_split

labels_map = {0: "T-Shirt", 1: "Trouser", 2: "Pullover", 3: "Dress"}


class StripedImages(Dataset):
    """Image i has a bright stripe in row 3 * label; the label cycles through 4 classes."""

    def __init__(self, count, transform=None, target_transform=None):
        self.count = count
        self.transform = transform
        self.target_transform = target_transform

    def __len__(self):
        return self.count

    def __getitem__(self, idx):
        label = idx % 4
        image = torch.zeros(1, 28, 28)
        image[0, 3 * label, :] = 1.0 + idx / 100
        if self.transform:
            image = self.transform(image)
        if self.target_transform:
            label = self.target_transform(label)
        return image, label


training_data = StripedImages(200)
print(len(training_data))
img, label = training_data[5]
print(img.shape, label, labels_map[label], img.sum().item())

g = torch.Generator().manual_seed(28)
train_dataloader = DataLoader(training_data, batch_size=64, shuffle=True, generator=g)
print(len(train_dataloader), len(train_dataloader.dataset))
train_features, train_labels = next(iter(train_dataloader))
print(f"Feature batch shape: {train_features.size()}")
print(f"Labels batch shape: {train_labels.size()}")
print(train_labels)
print(train_labels.dtype)

sizes = [len(lab) for _, lab in train_dataloader]
print(sizes)
dropping = DataLoader(training_data, batch_size=64, shuffle=False, drop_last=True)
print(len(dropping), [lab[:4].tolist() for _, lab in dropping])

onehot = StripedImages(8, target_transform=lambda y: torch.eye(4)[y])
print(onehot[2][1])

features = torch.arange(20.0).reshape(10, 2)
targets = torch.arange(10) % 2
pairs = TensorDataset(features, targets)
print(len(pairs), pairs[3])
part_a, part_b = random_split(pairs, [7, 3], generator=torch.Generator().manual_seed(29))
print(len(part_a), len(part_b), sorted(part_b.indices))
for xb, yb in DataLoader(part_b, batch_size=2):
    print(xb.tolist(), yb.tolist())
