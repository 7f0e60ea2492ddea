"""Quick-check questions that work the same in Jupyter and on the static website.

A :class:`Question` shows its options as radio buttons. The feedback for each option is
pre-written and sits in an :class:`ipywidgets.Stack`; the radio buttons' ``index`` is linked to the
stack's ``selected_index`` in the browser (:func:`ipywidgets.jslink`), so choosing an answer shows
why it is right or wrong without a kernel — the same mechanism as the static explorers.

Write feedback that *explains*: the reader who picked a wrong option should learn what they
mixed up, and the one who picked the right option should learn why it is right.

Each chapter's questions live in the library, in the package ``posenc_lib.course.quizzes``
(``ch01.py`` …), not in the notebook: the notebook cell is just ``quizzes.chapter(5)``, so
neither the website nor the notebook shows an answer key before the reader answers. Numbers
that feedback quotes are computed there with the library, never typed in.

Prompts and feedback may use two pieces of inline markup, rendered to HTML: ``*emphasis*`` and
```code```. Option texts are plain text (radio-button labels cannot hold markup). Write maths in
Unicode (ω, θ, √, ≈); ``$…$`` would not be typeset inside a widget, so it is rejected.

Authors write options in any order: :func:`posenc_lib.course.quizzes.chapter` moves each correct
option to a position that is balanced within the quiz and shuffled (no cycle to spot), except
where the options have a natural order (numbers in ascending order), which is kept.

A question has a ``kind``: ``"concept"`` (explain why), ``"predict"`` (what will happen if …) or
``"compute"`` (a small calculation). Every chapter has at least one predict or compute question.
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import ipywidgets as widgets

__all__ = ["KINDS", "Option", "Question", "Quiz", "arranged", "inline_html", "option", "question",
           "quiz"]

KINDS = ("concept", "predict", "compute")
_MARKUP = re.compile(r"(`[^`]+`|\*\*[^*]+\*\*|\*[^*\s][^*]*\*)")


def inline_html(text: str) -> str:
    """Escape ``text`` for HTML and render its ``*emphasis*``, ``**strong**`` and ```code```.

    >>> inline_html("the *score*, not `w`")
    'the <em>score</em>, not <code>w</code>'
    """
    out = []
    for piece in _MARKUP.split(text):
        if piece.startswith("`") and piece.endswith("`") and len(piece) > 2:
            out.append(f"<code>{html.escape(piece[1:-1])}</code>")
        elif piece.startswith("**") and piece.endswith("**") and len(piece) > 4:
            out.append(f"<strong>{html.escape(piece[2:-2])}</strong>")
        elif piece.startswith("*") and piece.endswith("*") and len(piece) > 2:
            out.append(f"<em>{html.escape(piece[1:-1])}</em>")
        else:
            out.append(html.escape(piece))
    return "".join(out)


def _plain(text: str) -> str:
    """The text form of inline markup: emphasis markers dropped, code kept in backticks."""
    return re.sub(r"\*\*([^*]+)\*\*|\*([^*\s][^*]*)\*", lambda m: m.group(1) or m.group(2), text)


def _check_text(name: str, value: Any, *, markup: bool) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"{name} must be a non-empty string, got {value!r}")
    if "$" in value:
        raise ValueError(f"{name} must not use $...$ maths (it does not render in a widget); "
                         f"write it in Unicode: {value!r}")
    if "<" in value and re.search(r"<[a-zA-Z/]", value):
        raise ValueError(f"{name} must not contain HTML tags; use *emphasis* or `code`: {value!r}")
    if markup:
        leftover = _MARKUP.sub("", value)
        if "`" in leftover or re.search(r"\*\S|\S\*", leftover):
            raise ValueError(f"{name} has unbalanced * or ` markup: {value!r}")
    elif re.search(r"[`]|\*\S", value):
        raise ValueError(f"{name} is plain text (a radio-button label): no * or ` markup, "
                         f"got {value!r}")
    return value


@dataclass(frozen=True)
class Option:
    """One answer: its text, whether it is correct, and the feedback shown when chosen."""

    text: str
    correct: bool
    feedback: str


def option(text: str, correct: bool, feedback: str) -> Option:
    """Shorthand for :class:`Option`, validating its fields."""
    if not isinstance(feedback, str) or not feedback.strip():
        raise ValueError(f"feedback must explain the answer, got {feedback!r}")
    _check_text("text", text, markup=False)
    if not isinstance(correct, bool):
        raise TypeError(f"correct must be a bool, got {correct!r}")
    _check_text("feedback", feedback, markup=True)
    return Option(text, correct, feedback)


RUN_TO_ANSWER = ("Run this cell to answer: choose an option and its feedback appears (the "
                 "answers are not shown before you choose).")


class Question:
    """A multiple-choice question with at least one correct option and feedback for each."""

    def __init__(self, prompt: str, options: Sequence[Option], kind: str = "concept",
                 ordered: bool | None = None) -> None:
        options = tuple(options)
        _check_text("prompt", prompt, markup=True)
        if kind not in KINDS:
            raise ValueError(f"kind must be one of {KINDS}, got {kind!r}")
        if len(options) < 2:
            raise ValueError(f"a question needs at least 2 options, got {len(options)}")
        if not any(o.correct for o in options):
            raise ValueError(f"no option of {prompt!r} is marked correct")
        if len({o.text for o in options}) != len(options):
            raise ValueError(f"options of {prompt!r} must have distinct texts")
        if ordered is not None and not isinstance(ordered, bool):
            raise TypeError(f"ordered must be a bool or None, got {ordered!r}")
        self.prompt = prompt
        self.options = options
        self.kind = kind
        self.ordered = _numbers_ascending(options) if ordered is None else ordered

    def with_correct_at(self, position: int) -> Question:
        """The same question with its (single) correct option moved to ``position``; the wrong
        options keep their relative order. Questions whose options have a natural order (numbers
        in ascending order, or ``ordered=True``) and questions with several correct options are
        returned unchanged."""
        if self.ordered or len(self.correct_indices) != 1:
            return self
        position = position % len(self.options)
        right = self.options[self.correct_indices[0]]
        wrong = [o for o in self.options if not o.correct]
        return Question(self.prompt, wrong[:position] + [right] + wrong[position:],
                        kind=self.kind, ordered=False)

    @property
    def correct_indices(self) -> tuple[int, ...]:
        """Positions (0-based) of the correct options."""
        return tuple(i for i, o in enumerate(self.options) if o.correct)

    def feedback_html(self, index: int) -> str:
        o = self.options[index]
        mark, word, cls = ("✔", "Correct.", "right") if o.correct else ("✘", "Not quite.", "wrong")
        return (
            f'<div class="posenc-feedback posenc-{cls}" role="status">'
            f"<strong>{mark} {word}</strong> {inline_html(o.feedback)}</div>"
        )

    def widget(self) -> widgets.VBox:
        prompt = widgets.HTML(f'<div class="posenc-prompt">{inline_html(self.prompt)}</div>')
        choices = widgets.RadioButtons(
            options=[o.text for o in self.options], index=None,
            layout=widgets.Layout(width="auto", max_width="100%"),
        )
        feedback = widgets.Stack(
            [widgets.HTML(self.feedback_html(i)) for i in range(len(self.options))],
            selected_index=None,
        )
        widgets.jslink((choices, "index"), (feedback, "selected_index"))
        box = widgets.VBox([prompt, choices, feedback])
        box.add_class("posenc-question")
        return box

    def text(self) -> str:
        letters = "abcdefghij"
        lines = [f"Quick check: {_plain(self.prompt)}"]
        lines += [f"  ({letters[i]}) {o.text}" for i, o in enumerate(self.options)]
        return "\n".join(lines)

    def static_html(self, number: int | None = None) -> str:
        """The question and its options without feedback, for a notebook before the cell runs."""
        label = f"<strong>Q{number}.</strong> " if number is not None else ""
        items = "".join(f"<li>{html.escape(o.text)}</li>" for o in self.options)
        return (f'<div class="posenc-prompt">{label}{inline_html(self.prompt)}</div>'
                f'<ol type="a">{items}</ol>')

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        data = dict(_bundle(self.widget()))
        data["text/html"] = (f'<div class="posenc-quiz-preview">{self.static_html()}'
                             f"<p><em>{RUN_TO_ANSWER}</em></p></div>")
        data["text/plain"] = self.text()
        return data


class Quiz:
    """Several questions shown together (a chapter's quick check)."""

    def __init__(self, questions: Sequence[Question], title: str = "Quick check") -> None:
        questions = tuple(questions)
        if not questions:
            raise ValueError("a quiz needs at least one question")
        self.questions = questions
        self.title = title

    def widget(self) -> widgets.VBox:
        items: list[widgets.Widget] = [widgets.HTML(f"<h4>{html.escape(self.title)}</h4>")]
        for k, q in enumerate(self.questions, 1):
            box = q.widget()
            first = box.children[0]
            first.value = (f'<div class="posenc-prompt"><strong>Q{k}.</strong> '
                           f'{inline_html(q.prompt)}</div>')
            items.append(box)
        out = widgets.VBox(items)
        out.add_class("posenc-quiz")
        return out

    def static_html(self) -> str:
        """Every question without feedback, for a notebook before the cell runs."""
        body = "".join(q.static_html(k) for k, q in enumerate(self.questions, 1))
        return (f'<div class="posenc-quiz-preview"><h4>{html.escape(self.title)}</h4>{body}'
                f"<p><em>{RUN_TO_ANSWER}</em></p></div>")

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        data = dict(_bundle(self.widget()))
        data["text/html"] = self.static_html()
        data["text/plain"] = "\n\n".join(
            f"Q{k}. " + q.text().removeprefix("Quick check: ")
            for k, q in enumerate(self.questions, 1)
        )
        return data


def question(prompt: str, *options: Option, kind: str = "concept",
             ordered: bool | None = None) -> Question:
    """Build a :class:`Question`: ``question("Why …?", option(...), option(...), kind=...)``.

    The correct option's position is chosen by :func:`arranged` when the chapter's quiz is shown;
    options that start with numbers in ascending order keep their order (``ordered=True`` or
    ``False`` overrides the detection).
    """
    return Question(prompt, options, kind=kind, ordered=ordered)


def quiz(*questions: Question, title: str = "Quick check") -> Quiz:
    """Build a :class:`Quiz` from questions."""
    return Quiz(questions, title=title)


def arranged(q: Quiz, seed: int) -> Quiz:
    """``q`` with each correct option moved to a position drawn without a visible pattern.

    The positions 0, 1, 2, … are used equally often within the quiz (as far as the number of
    questions allows) and shuffled with ``seed``, so the answer can be guessed neither from
    where it usually is nor from a cycle. Authors write the options in any order.
    """
    import random

    rng = random.Random(1000 + seed)
    for _attempt in range(50):
        used: dict[int, int] = {}
        out = []
        for x in q.questions:
            if x.ordered or len(x.correct_indices) != 1:  # kept as written; still counts
                p = x.correct_indices[0]
            else:
                n = len(x.options)
                least = min(used.get(i, 0) for i in range(n))
                p = rng.choice([i for i in range(n) if used.get(i, 0) == least])
                x = x.with_correct_at(p)
            used[p] = used.get(p, 0) + 1
            out.append(x)
        if not _looks_patterned([x.correct_indices[0] for x in out]):
            break
    return Quiz(out, title=q.title)


def _looks_patterned(positions: Sequence[int]) -> bool:
    """Would a reader spot a rule: a repeating cycle, or the same position three times running?"""
    n = len(positions)
    for period in (1, 2, 3, 4):
        if n >= period + 2 and all(positions[i] == positions[i + period]
                                   for i in range(n - period)):
            return True
    return any(positions[i] == positions[i + 1] == positions[i + 2] for i in range(n - 2))


def _numbers_ascending(options: Sequence[Option]) -> bool:
    """Do all option texts start with a number, in ascending order (a natural order to keep)?"""
    values = []
    for o in options:
        m = re.match(r"\s*[≈~]?\s*([-+−]?\d[\d,]*(?:\.\d+)?)", o.text)
        if not m:
            return False
        values.append(float(m.group(1).replace(",", "").replace("−", "-")))
    return values == sorted(values)


def _bundle(widget: widgets.Widget) -> dict[str, Any]:
    bundle = widget._repr_mimebundle_()
    return bundle[0] if isinstance(bundle, tuple) else bundle
