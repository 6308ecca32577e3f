"""A stand-in for ``cupyx.scipy``: only ``special.erf``."""
