"""``torch.distributions``: the distributions lessons sample from, drawing PyTorch's streams
(Categorical and Multinomial through ``torch.multinomial``, Normal through ``torch.normal``)."""

from engine.distributions.bernoulli import Bernoulli
from engine.distributions.categorical import Categorical
from engine.distributions.distribution import Distribution
from engine.distributions.multinomial import Multinomial
from engine.distributions.normal import Normal
from engine.distributions.uniform import Uniform

__all__ = ["Bernoulli", "Categorical", "Distribution", "Multinomial", "Normal", "Uniform"]
