"""The six position schemes the book trains and probes, in one registry.

Every list of schemes in the library reads this one: the lab's models
(``lab.POSITIONS``), the extrapolation sweeps
(:data:`posenc_lib.extrapolation.SCHEMES`), the catalogue's untrained probing layers
(:data:`posenc_lib.catalogue.LAYER_SCHEMES`) and the figures' legends, colours, markers and line
styles. Adding a scheme here (and teaching the lab to build it) is the one place to start.

>>> from posenc_lib import schemes
>>> schemes.NAMES
('none', 'learned', 'sinusoidal', 'rope', 'alibi', 't5')
>>> schemes.get("rope").label, schemes.get("rope").acts_on
('RoPE', 'queries-keys')
"""

from __future__ import annotations

from dataclasses import dataclass

from ._validate import check_choice

__all__ = ["NAMES", "REGISTRY", "WHERE", "Scheme", "get"]

#: The places where a scheme injects position into one attention head. ``input`` means added
#: to the token vectors, ``queries-keys`` rotating queries and keys, ``scores`` added to the
#: attention logits, ``nowhere`` not at all.
WHERE: tuple[str, ...] = ("input", "queries-keys", "scores", "nowhere")


@dataclass(frozen=True)
class Scheme:
    """One position scheme: its name in code, how figures name it, where it acts and how it is
    drawn (an Okabe–Ito colour, a marker and a line style, so plots read without colour too)."""

    name: str
    label: str
    long_label: str
    acts_on: str
    colour: str
    marker: str
    linestyle: str | tuple[int, tuple[int, ...]]

    def __post_init__(self) -> None:
        check_choice("acts_on", self.acts_on, WHERE)


#: The schemes in the book's order (the order of chapters 7-9 and of the lab's tables).
REGISTRY: dict[str, Scheme] = {s.name: s for s in (
    Scheme("none", "NoPE", "NoPE", "nowhere", "#000000", "o", ":"),
    Scheme("learned", "learned", "learned table", "input", "#CC79A7", "s", "-."),
    Scheme("sinusoidal", "sinusoidal", "sinusoidal", "input", "#E69F00", "^", "--"),
    Scheme("rope", "RoPE", "RoPE", "queries-keys", "#0072B2", "D", "-"),
    Scheme("alibi", "ALiBi", "ALiBi", "scores", "#009E73", "v", (0, (6, 2, 1, 2, 1, 2))),
    Scheme("t5", "T5 bias", "T5 buckets", "scores", "#D55E00", "P", (0, (1, 1))),
)}

#: The scheme names, in the book's order.
NAMES: tuple[str, ...] = tuple(REGISTRY)


def get(name: str) -> Scheme:
    """The :class:`Scheme` called ``name`` (one of :data:`NAMES`); a clear error otherwise."""
    return REGISTRY[check_choice("scheme", name, NAMES)]
