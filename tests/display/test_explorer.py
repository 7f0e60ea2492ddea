"""posenc_lib.display.explorer: parameters, both modes, and every explorer the book ships."""

import importlib
import pkgutil

import ipywidgets as widgets
import numpy as np
import pytest
from ipywidgets.widgets.widget import _instances as live_widgets
from ipywidgets.widgets.widget_link import Link

import posenc_lib.course.figures
from posenc_lib.display import explorer as E


def all_explorer_factories():
    """Every ``*_explorer`` function in posenc_lib.course.figures (each builds one book explorer)."""
    found = []
    for mod in pkgutil.iter_modules(posenc_lib.course.figures.__path__):
        module = importlib.import_module(f"posenc_lib.course.figures.{mod.name}")
        for name in getattr(module, "__all__", dir(module)):
            if name.endswith("_explorer") and callable(getattr(module, name)):
                found.append(pytest.param(getattr(module, name), id=f"{mod.name}.{name}"))
    return found


FACTORIES = all_explorer_factories()


def test_the_book_has_explorers():
    assert len(FACTORIES) >= 1


@pytest.mark.parametrize("factory", FACTORIES)
def test_no_slider_position_errors(factory):
    ex = factory()
    for values in ex.sweep():
        png = ex.render_png(**values)
        assert png[:8] == b"\x89PNG\r\n\x1a\n"
        assert ex.alt_text(**values).strip()


@pytest.mark.parametrize("factory", FACTORIES)
def test_every_slider_changes_the_figure(factory):
    ex = factory()
    base = ex.render_png(compact=True)
    for p in ex.params:
        i = p.grid.index(p.default)
        other = p.grid[i + 1] if i + 1 < len(p.grid) else p.grid[i - 1]
        assert ex.render_png(compact=True, **{p.name: other}) != base, \
            f"moving {p.name} from {p.default} to {other} leaves the figure unchanged"
        if p.kind != "choice":
            lo, hi = p.live_extremes()[0], p.live_extremes()[-1]
            assert ex.render_png(**{p.name: lo}) != ex.render_png(**{p.name: hi})


@pytest.mark.parametrize("factory", FACTORIES)
def test_static_page_budget(factory):
    ex = factory()
    frames = int(np.prod([len(p.grid) for p in ex.params]))
    assert frames <= E.MAX_FRAMES
    size = len(ex.frame_html(compact=True))
    assert size * frames < 1_000_000, f"{frames} frames of ~{size} bytes: too heavy for a page"


def simple_explorer(calls=None):
    def plot(fig, d, n, view):
        if calls is not None:
            calls.append((d, n, view))
        ax = fig.subplots()
        line, = ax.plot(np.arange(d), np.sin(np.arange(d) / n) if view == "sin" else
                        np.cos(np.arange(d) / n))

        def update(d, n, view):
            if calls is not None:
                calls.append(("update", d, n, view))
            f = np.sin if view == "sin" else np.cos
            line.set_data(np.arange(d), f(np.arange(d) / n))
            ax.set_xlim(0, d)

        return update

    return E.explore(plot, E.dim_param(default=8, grid=(4, 8, 16)),
                     E.base_param(default=10.0, grid=(10.0, 100.0)),
                     E.choice_param("view", "view", ("sin", "cos")),
                     title="test", alt="d={d} n={n:g} {view}")


def test_static_widget_structure():
    ex = simple_explorer()
    box = ex.static()
    header, s_d, s_n, t_view, root = box.children
    assert isinstance(s_d, widgets.SelectionSlider) and s_d.index == 1
    assert s_n.index == 0 and t_view.value == "sin"
    assert isinstance(root, widgets.Stack) and root.selected_index == 1
    assert len(root.children) == 3
    leaves = [leaf for mid in root.children for inner in mid.children for leaf in inner.children]
    assert len(leaves) == 3 * 2 * 2
    assert len({leaf.value for leaf in leaves}) == 12  # every frame differs
    links = [w for w in live_widgets.values() if isinstance(w, Link)
             and w.source[0] in (s_d, s_n, t_view)]
    # one link per stack: 1 at the d level, 3 at the n level, 6 at the view level
    assert len(links) == 1 + 3 + 6
    assert "d=4 n=10 sin" in leaves[0].value


def test_live_widget_redraws_in_place():
    calls = []
    ex = simple_explorer(calls)
    box = ex.live()
    header, row_d, row_n, t_view, image = box.children
    (s_d, r_d), (s_n, r_n) = row_d.children, row_n.children
    assert isinstance(s_d, widgets.IntSlider) and (s_d.min, s_d.max, s_d.step) == (4, 512, 2)
    assert isinstance(s_n, widgets.FloatLogSlider)
    assert isinstance(t_view, widgets.ToggleButtons)
    assert (r_d.value, r_n.value) == ("8", "10")     # the static labels' format, not 1.00e+1
    first = image.value
    fig = ex._fig
    s_d.value = 100  # a value that is not on the static grid
    assert image.value != first
    assert "d=100" in image.value and r_d.value == "100"
    assert ex._fig is fig  # same figure object, updated in place
    assert calls[0] == (8, 10.0, "sin") and calls[-1] == ("update", 100, 10.0, "sin")
    s_n.value = 10000.0
    assert r_n.value == "10000"
    assert sum(1 for c in calls if c[0] != "update") == 1


def test_mode_from_environment(monkeypatch):
    monkeypatch.setenv("POSENC_WIDGETS", "static")
    assert E.mode() == "static"
    ex = simple_explorer()
    bundle = ex._repr_mimebundle_()
    assert bundle["text/plain"] == "<Explorer 'test': sliders d, n, view>"
    monkeypatch.setenv("POSENC_WIDGETS", "live")
    assert ex._repr_mimebundle_()["text/plain"] == bundle["text/plain"]
    monkeypatch.setenv("POSENC_WIDGETS", "fancy")
    with pytest.raises(ValueError, match="POSENC_WIDGETS must be 'live' or 'static', got 'fancy'"):
        E.mode()


def test_standard_parameter_scales():
    d, n, m = E.dim_param(), E.base_param(), E.slope_param()
    assert (d.min, d.max, d.step) == (4, 512, 2) and all(g % 2 == 0 for g in d.grid)
    assert (n.min, n.max, n.kind) == (10.0, 100000.0, "log")
    assert m.kind == "log" and m.min == 1 / 256 and m.max == 1.0
    assert m.grid == tuple(2.0 ** -k for k in range(8, -1, -1))
    assert [m.fmt(g) for g in m.grid[:2]] == ["1/256", "1/128"] and m.fmt(1.0) == "1"
    # live extremes stay inside the range and hit both ends
    for p in (d, n, m):
        ext = p.live_extremes()
        assert min(ext) == pytest.approx(p.min) and max(ext) == pytest.approx(p.max)


@pytest.mark.parametrize("make, msg", [
    (lambda: E.int_param("d", "d", 4, 8, 6, (4, 8)), "default of 'd' .* must be one of its grid"),
    (lambda: E.int_param("d", "d", 4, 8, 4, (4, 10)), "grid value 10 of 'd' lies outside"),
    (lambda: E.log_param("m", "m", 0.0, 1.0, 0.5, (0.5,)), "needs min > 0"),
    (lambda: E.int_param("d", "d", 8, 4, 4, (4,)), "needs min < max"),
    (lambda: E.int_param("not valid", "d", 4, 8, 4, (4,)), "must be a Python identifier"),
    (lambda: E.choice_param("v", "v", ()), "tuple index out of range|at least one"),
])
def test_param_validation(make, msg):
    with pytest.raises((ValueError, IndexError), match=msg):
        make()


def test_explorer_validation():
    p = E.int_param("a", "a", 0, 100, 0, tuple(range(0, 100, 10)))
    q = E.int_param("b", "b", 0, 100, 0, tuple(range(0, 100, 10)))
    with pytest.raises(ValueError, match="the static grids give 100 frames"):
        E.explore(lambda fig, a, b: None, p, q, title="t", alt="a")
    with pytest.raises(ValueError, match="parameter names must be unique"):
        E.explore(lambda fig, a: None, p, p, title="t", alt="a")
    with pytest.raises(TypeError, match="plot must be callable"):
        E.explore(None, p, title="t", alt="a")
    ex = E.explore(lambda fig, a: fig.subplots(), p, title="t", alt="a")
    with pytest.raises(ValueError, match=r"unknown parameter\(s\) \['z'\]"):
        ex.render_png(z=1)


def _pixels(png: bytes) -> np.ndarray:
    import io

    from PIL import Image

    return np.asarray(Image.open(io.BytesIO(png)).convert("RGB"))


def _live_vs_fresh(factory, walk):
    """For each values in ``walk``: per-pixel largest channel difference between the live
    explorer's image (reached by the walk, redrawn, not cached) and a fresh explorer's full draw."""
    from posenc_lib.display.plotting import png_bytes

    live = factory()
    for values in walk:
        live._pngs.clear()  # draw it again, not from the image cache
        fast = _pixels(live.render_png(**values))
        fresh = factory()
        full = _pixels(png_bytes(fresh.draw(**values), dpi=fresh.dpi))
        assert fast.shape == full.shape
        yield values, np.abs(fast.astype(int) - full.astype(int)).max(axis=-1)


@pytest.mark.parametrize("factory", FACTORIES)
def test_live_updates_match_a_fresh_full_drawing(factory):
    """The fast live path (in-place updates, blitting) draws what a fresh figure draws.

    Blitting redraws the changing artists over a saved background, so where one of them crosses
    a grid line or tick mark drawn in the background, the two are blended in the other order and
    a few anti-aliased pixels differ slightly: at most 1 pixel in 1,000 may differ by more than 2
    levels (of 255), 1 in 10,000 by more than 16, and none by more than 32. A stale or missing
    artist (a label, a line, a tick) differs by far more.
    """
    combos = list(factory().sweep())
    # a walk that changes one, then several values, and comes back to a value drawn before
    walk = (combos[1], combos[-1], combos[0], combos[len(combos) // 2], combos[1])
    for values, diff in _live_vs_fresh(factory, walk):
        assert _same_drawing(diff), (values, np.mean(diff > 2), np.mean(diff > 16), diff.max())


def _same_drawing(diff: np.ndarray) -> bool:
    return bool(np.mean(diff > 2) <= 1e-3 and np.mean(diff > 16) <= 1e-4 and diff.max() <= 32)


def _blitting_explorer(report_title: bool = True, nan_cells: bool = False):
    """A small explorer whose update returns the artists it changed (so live moves blit)."""

    def plot(fig, k):
        ax = fig.subplots()
        img = ax.imshow(np.zeros((8, 8)), vmin=0, vmax=8)
        title = ax.set_title("")

        def update(k):
            data = np.add.outer(np.arange(8), np.zeros(8)) + k
            if nan_cells:
                data[:, k:] = np.nan   # transparent cells, fewer as k grows
            img.set_data(data)
            title.set_text(f"k = {k}")
            return [img, title] if report_title else [img]

        update(k)
        return update

    return E.explore(plot, E.int_param("k", "k", 1, 7, 1, (1, 4, 7)), title="t", alt="a")


def test_the_live_check_catches_an_artist_missing_from_the_blit():
    """The check above has teeth: an update that changes its title but does not report it
    leaves the old title in the saved background, and the comparison sees it."""
    walk = ({"k": 4}, {"k": 7})
    worst = max(diff.max() for _, diff in _live_vs_fresh(
        lambda: _blitting_explorer(report_title=False), walk))
    assert worst > 100
    assert all(_same_drawing(diff) for _, diff in _live_vs_fresh(_blitting_explorer, walk))


def test_blitting_an_image_with_transparent_cells_leaves_no_old_pixels():
    """A full draw composites images even when they are "animated", so the explorer hides
    changed images while it saves the background (or old cells would show through NaNs)."""
    walk = ({"k": 7}, {"k": 1}, {"k": 4})
    for values, diff in _live_vs_fresh(lambda: _blitting_explorer(nan_cells=True), walk):
        assert _same_drawing(diff), values


def test_an_unrun_notebook_shows_the_default_figure_and_how_to_get_sliders():
    ex = simple_explorer()
    bundle = ex._repr_mimebundle_()
    preview = bundle["text/html"]
    assert "application/vnd.jupyter.widget-view+json" in bundle   # live or stored widget first
    assert preview.count("<img ") == 1 and "Run this cell to move the sliders" in preview
    assert ex.alt_text(**ex.defaults).replace("'", "&#x27;") in preview
    for p in ex.params:
        assert p.label in preview


@pytest.mark.parametrize("value, label", [(10000.0, "10000"), (10.0, "10"), (0.25, "0.25"),
                                          (0.297302, "0.2973"), (1234.56, "1235"),
                                          (0.001, "0.001"), (100000.0, "1e+05"), (8, "8")])
def test_slider_labels(value, label):
    assert E._default_fmt(value) == label


@pytest.mark.parametrize("m, label", [(0.25, "1/4"), (1 / 256, "1/256"), (0.297302, "0.297"),
                                      (1.0, "1")])
def test_slope_labels(m, label):
    assert E._slope_label(m) == label


def test_live_images_are_cached_per_value_and_match_a_redraw():
    """A value already shown comes from the cache, and is the image a fresh redraw gives."""
    from posenc_lib.course.figures import relative as relative_figures

    ex = relative_figures.t5_buckets_explorer()
    first = ex.render_png(num_buckets=16, max_distance=64)
    other = ex.render_png(num_buckets=32, max_distance=128)
    assert first != other
    assert ex.render_png(num_buckets=16, max_distance=64) is first  # from the cache
    ex._pngs.clear()
    assert ex.render_png(num_buckets=16, max_distance=64) == first  # redrawn: same bytes


def test_live_image_cache_is_bounded():
    from posenc_lib.course.figures import relative as relative_figures
    from posenc_lib.display import explorer as explorer_module

    ex = relative_figures.shaw_clipping_explorer()
    for k in range(17):
        ex.render_png(max_distance=k)
    assert len(ex._pngs) == min(17, explorer_module.PNG_CACHE)
    assert ex.time_update(3) and len(ex._pngs) == 1  # a redraw timing empties it each move
