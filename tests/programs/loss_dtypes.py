import torch
import torch.nn.functional as F
from attempt import attempt

attempt("bce int t", lambda: F.binary_cross_entropy(torch.tensor([0.5]), torch.tensor([1])))
attempt(
    "bce f64 t",
    lambda: F.binary_cross_entropy(torch.tensor([0.5]), torch.tensor([1.0], dtype=torch.float64)),
)
attempt(
    "bce f64 i",
    lambda: F.binary_cross_entropy(torch.tensor([0.5], dtype=torch.float64), torch.tensor([1.0])),
)
attempt("bce bool t", lambda: F.binary_cross_entropy(torch.tensor([0.5]), torch.tensor([True])))
attempt(
    "bcel int t", lambda: F.binary_cross_entropy_with_logits(torch.tensor([0.5]), torch.tensor([1]))
)
attempt(
    "bcel f64 t",
    lambda: F.binary_cross_entropy_with_logits(
        torch.tensor([0.5]), torch.tensor([1.0], dtype=torch.float64)
    ),
)
attempt("mse int t", lambda: F.mse_loss(torch.tensor([0.5]), torch.tensor([1])))
attempt(
    "mse f64", lambda: F.mse_loss(torch.tensor([0.5]), torch.tensor([1.0], dtype=torch.float64))
)
attempt("mse int both", lambda: F.mse_loss(torch.tensor([2]), torch.tensor([1])))
attempt("ce int input", lambda: F.cross_entropy(torch.tensor([[1, 2]]), torch.tensor([1])))
attempt(
    "ce int32 target",
    lambda: F.cross_entropy(torch.tensor([[1.0, 2.0]]), torch.tensor([1], dtype=torch.int32)),
)
attempt(
    "ce f64 input",
    lambda: F.cross_entropy(torch.tensor([[1.0, 2.0]], dtype=torch.float64), torch.tensor([1])),
)
attempt(
    "ce prob target",
    lambda: F.cross_entropy(torch.tensor([[1.0, 2.0]]), torch.tensor([[0.3, 0.7]])),
)
attempt("ce 1d", lambda: F.cross_entropy(torch.tensor([1.0, 2.0, 0.5]), torch.tensor(1)))
attempt(
    "ce ignore",
    lambda: F.cross_entropy(torch.tensor([[1.0, 2.0], [0.1, 0.2]]), torch.tensor([1, -100])),
)
attempt(
    "ce neg", lambda: F.cross_entropy(torch.tensor([[1.0, 2.0], [0.1, 0.2]]), torch.tensor([1, -1]))
)
attempt("nll", lambda: F.nll_loss(torch.tensor([[-1.0, -2.0], [-0.1, -0.2]]), torch.tensor([1, 0])))
attempt(
    "ce sum",
    lambda: F.cross_entropy(
        torch.tensor([[1.0, 2.0], [0.1, 0.2]]), torch.tensor([1, 0]), reduction="sum"
    ),
)
attempt(
    "ce none",
    lambda: F.cross_entropy(
        torch.tensor([[1.0, 2.0], [0.1, 0.2]]), torch.tensor([1, 0]), reduction="none"
    ),
)
attempt(
    "ce bad red",
    lambda: F.cross_entropy(
        torch.tensor([[1.0, 2.0], [0.1, 0.2]]), torch.tensor([1, 0]), reduction="avg"
    ),
)
attempt(
    "mse none",
    lambda: F.mse_loss(torch.tensor([0.5, 1.0]), torch.tensor([1.0, 3.0]), reduction="none"),
)
attempt("mse bcast", lambda: F.mse_loss(torch.ones(3, 1), torch.zeros(3)))
attempt(
    "bce sum",
    lambda: F.binary_cross_entropy(
        torch.tensor([0.2, 0.9]), torch.tensor([0.0, 1.0]), reduction="sum"
    ),
)
attempt(
    "bce 0 1", lambda: F.binary_cross_entropy(torch.tensor([0.0, 1.0]), torch.tensor([1.0, 0.0]))
)
attempt(
    "bcel",
    lambda: F.binary_cross_entropy_with_logits(
        torch.tensor([-50.0, 50.0, 0.0]), torch.tensor([1.0, 0.0, 0.5])
    ),
)
attempt("sm int", lambda: F.softmax(torch.tensor([1, 2]), dim=0))
attempt("sm dtype", lambda: F.softmax(torch.tensor([1, 2]), dim=0, dtype=torch.float64))
attempt("sm 3d", lambda: torch.softmax(torch.arange(8.0).reshape(2, 2, 2), dim=1))
attempt("lsm big", lambda: torch.log_softmax(torch.tensor([1000.0, 0.0, -1000.0]), dim=0))
attempt("sm inf", lambda: torch.softmax(torch.tensor([float("-inf"), 0.0]), dim=0))
attempt("sig big", lambda: torch.sigmoid(torch.tensor([-100.0, 100.0])))
attempt("relu fn", lambda: F.relu(torch.tensor([-1.0, 2.0])))
attempt("tanh fn", lambda: F.tanh(torch.tensor([-1.0, 2.0])))
attempt("sigmoid fn", lambda: F.sigmoid(torch.tensor([-1.0, 2.0])))
attempt("sm nodim", lambda: F.softmax(torch.tensor([-1.0, 2.0])))
attempt("softmax int", lambda: torch.softmax(torch.tensor([[1, 2], [3, 4]]), dim=0))
attempt("log_softmax int", lambda: torch.tensor([1, 2]).log_softmax(0))
attempt("softmax nodim module", lambda: torch.nn.Softmax()(torch.tensor([[1.0, 2.0], [3.0, 1.0]])))
attempt("log_softmax nodim", lambda: F.log_softmax(torch.tensor([[1.0, 2.0], [3.0, 1.0]])))
attempt("linspace neg", lambda: torch.linspace(0, 1, -2))
attempt("arange sign", lambda: torch.arange(5, 0))
attempt("arange sign2", lambda: torch.arange(0, 5, -1))
attempt("arange neg ok", lambda: torch.arange(5, 0, -2))
attempt("randn float", lambda: torch.randn(2.5))
attempt("randn 2 float", lambda: torch.randn(2, 2.5))
attempt("zeros float", lambda: torch.zeros(2.0))
attempt("ones tuple float", lambda: torch.ones((2, 2.0)))
attempt("rand str", lambda: torch.rand(2, "a"))
attempt("full int size", lambda: torch.full(3, 1.0))
attempt("full list", lambda: torch.full([3], 1.0))
attempt("full str", lambda: torch.full((2,), "a"))
attempt("ragged", lambda: torch.tensor([[1, 2], [3]]))
attempt("ragged 3d", lambda: torch.tensor([[[1, 2], [3, 4]], [[1, 2], [3]]]))
attempt("ragged first", lambda: torch.tensor([[1], [2, 3]]))
attempt("not seq", lambda: torch.tensor([[1, 2], 3]))
attempt("str", lambda: torch.tensor("abc"))
attempt("str list", lambda: torch.tensor(["a", "b"]))
attempt("mixed str", lambda: torch.tensor([1, "a"]))
attempt("none", lambda: torch.tensor(None))
attempt("none list", lambda: torch.tensor([None]))
attempt("0d index", lambda: torch.tensor(5)[0])
attempt("0d slice", lambda: torch.tensor(5)[:])
attempt("mask dim1", lambda: torch.ones(3, 4)[:, torch.tensor([True, False])])
attempt("mask 2d", lambda: torch.ones(3, 4)[torch.ones(2, 2, dtype=torch.bool)])
attempt("mask list", lambda: torch.ones(3, 4)[[True, False]])
attempt("too many ellipsis", lambda: torch.ones(3, 4)[..., 0, 0, 0])
attempt("mm batch", lambda: torch.ones(2, 2, 3) @ torch.ones(2, 4, 5))
attempt("mm batch bcast", lambda: torch.ones(2, 2, 3) @ torch.ones(3, 3, 4))
attempt("mm 1d batch", lambda: torch.ones(3) @ torch.ones(2, 4, 5))
attempt("mm 3d vec", lambda: torch.ones(2, 2, 3) @ torch.ones(4))
attempt("mm 3d 2d", lambda: torch.ones(2, 2, 3) @ torch.ones(4, 5))
attempt("mm ok", lambda: (torch.ones(2, 2, 3) @ torch.ones(3, 5)).shape)
attempt("mm bcast ok", lambda: (torch.ones(4, 1, 2, 3) @ torch.ones(5, 3, 2)).shape)
attempt(
    "adam beta0", lambda: torch.optim.Adam([torch.ones(1, requires_grad=True)], betas=(1.5, 0.9))
)
attempt(
    "adam beta1", lambda: torch.optim.Adam([torch.ones(1, requires_grad=True)], betas=(0.9, 1.0))
)
attempt("adam wd", lambda: torch.optim.Adam([torch.ones(1, requires_grad=True)], weight_decay=-1))
attempt(
    "sgd wd", lambda: torch.optim.SGD([torch.ones(1, requires_grad=True)], lr=0.1, weight_decay=-1)
)
attempt("sgd tensor", lambda: torch.optim.SGD(torch.ones(2, requires_grad=True), lr=0.1))
attempt(
    "sgd double tensor",
    lambda: torch.optim.SGD(torch.ones(2, dtype=torch.float64, requires_grad=True), lr=0.1),
)
attempt("linear noarg", lambda: torch.nn.Linear(2, 2)())
attempt("relu noarg", lambda: torch.nn.ReLU()())
attempt("seq noarg", lambda: torch.nn.Sequential()())
attempt("mse module noarg", lambda: torch.nn.MSELoss()(torch.ones(1)))
attempt("where float cond", lambda: torch.where(torch.ones(2), torch.ones(2), torch.zeros(2)))
attempt("where int cond", lambda: torch.where(torch.tensor([1, 0]), 1.0, 0.0))
attempt("cat ndim", lambda: torch.cat([torch.ones(2, 3), torch.ones(2, 2, 2)]))
attempt("cat empty 1d", lambda: torch.cat([torch.ones(2, 3), torch.tensor([])]))
attempt("softmax noarg fn", lambda: torch.softmax(torch.ones(2)))
attempt("log_softmax noarg fn", lambda: torch.log_softmax(torch.ones(2)))
