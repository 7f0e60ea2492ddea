"""posenc_lib — the numpy library behind *Positional Encoding, Interactively*.

One module per concept family:

* :mod:`posenc_lib.encodings` — integer and sinusoidal absolute encodings;
* :mod:`posenc_lib.rope` — rotary embeddings (both pairing conventions);
* :mod:`posenc_lib.alibi` — ALiBi slopes and biases;
* :mod:`posenc_lib.attention` — softmax and scaled dot-product attention;
* :mod:`posenc_lib.relative` — learned tables, Shaw et al. and T5 relative biases;
* :mod:`posenc_lib.rope_scaling` — stretching RoPE: position interpolation, NTK, YaRN;
* :mod:`posenc_lib.schemes` — the registry of the six schemes the lab trains (names, labels, styles);
* :mod:`posenc_lib.explorer` — the one slider helper behind every interactive figure;
* :mod:`posenc_lib.plotting` — the book's figure style.
"""

from . import alibi, attention, encodings, relative, rope, rope_scaling, schemes

__all__ = ["alibi", "attention", "encodings", "relative", "rope", "rope_scaling", "schemes"]
__version__ = "0.1.0"
