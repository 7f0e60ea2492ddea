"""Plotting functions, one module per concept family; every figure in the book is made here.

Each function draws into a Matplotlib :class:`~matplotlib.figure.Figure` it is given (so the same
function serves static figures via :func:`posenc_lib.display.plotting.show` and explorers via
:func:`posenc_lib.display.explorer.explore`), or returns a ready
:class:`~posenc_lib.display.explorer.Explorer`.
"""
