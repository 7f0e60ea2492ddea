"""Quick-check questions that work the same in Jupyter and on the static website.

A :class:`Question` shows its options as radio buttons. The feedback for each option is
pre-written and sits in an :class:`ipywidgets.Stack`; the radio buttons' ``index`` is linked to the
stack's ``selected_index`` in the browser (:func:`ipywidgets.jslink`), so choosing an answer shows
why it is right or wrong without a kernel — the same mechanism as the static explorers.

Write feedback that *explains*: the reader who picked a wrong option should learn what they
mixed up, and the one who picked the right option should learn why it is right.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import ipywidgets as widgets

__all__ = ["Option", "Question", "Quiz", "option", "question", "quiz"]


@dataclass(frozen=True)
class Option:
    """One answer: its text, whether it is correct, and the feedback shown when chosen."""

    text: str
    correct: bool
    feedback: str


def option(text: str, correct: bool, feedback: str) -> Option:
    """Shorthand for :class:`Option`, validating its fields."""
    if not isinstance(text, str) or not text.strip():
        raise ValueError(f"text must be a non-empty string, got {text!r}")
    if not isinstance(correct, bool):
        raise TypeError(f"correct must be a bool, got {correct!r}")
    if not isinstance(feedback, str) or not feedback.strip():
        raise ValueError(f"feedback must explain the answer, got {feedback!r}")
    return Option(text, correct, feedback)


class Question:
    """A multiple-choice question with at least one correct option and feedback for each."""

    def __init__(self, prompt: str, options: Sequence[Option]) -> None:
        options = tuple(options)
        if not isinstance(prompt, str) or not prompt.strip():
            raise ValueError(f"prompt must be a non-empty string, got {prompt!r}")
        if len(options) < 2:
            raise ValueError(f"a question needs at least 2 options, got {len(options)}")
        if not any(o.correct for o in options):
            raise ValueError(f"no option of {prompt!r} is marked correct")
        if len({o.text for o in options}) != len(options):
            raise ValueError(f"options of {prompt!r} must have distinct texts")
        self.prompt = prompt
        self.options = options

    def feedback_html(self, index: int) -> str:
        o = self.options[index]
        mark, word, cls = ("✔", "Correct.", "right") if o.correct else ("✘", "Not quite.", "wrong")
        return (
            f'<div class="posenc-feedback posenc-{cls}" role="status">'
            f"<strong>{mark} {word}</strong> {o.feedback}</div>"
        )

    def widget(self) -> widgets.VBox:
        prompt = widgets.HTML(f'<div class="posenc-prompt">{self.prompt}</div>')
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
        lines = [f"Quick check: {html.unescape(_strip_tags(self.prompt))}"]
        lines += [f"  ({letters[i]}) {o.text}" for i, o in enumerate(self.options)]
        return "\n".join(lines)

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        data = dict(_bundle(self.widget()))
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
            first.value = f'<div class="posenc-prompt"><strong>Q{k}.</strong> {q.prompt}</div>'
            items.append(box)
        out = widgets.VBox(items)
        out.add_class("posenc-quiz")
        return out

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        data = dict(_bundle(self.widget()))
        data["text/plain"] = "\n\n".join(
            f"Q{k}. " + q.text().removeprefix("Quick check: ")
            for k, q in enumerate(self.questions, 1)
        )
        return data


def question(prompt: str, *options: Option) -> Question:
    """Build a :class:`Question`: ``question("Why …?", option(...), option(...))``."""
    return Question(prompt, options)


def quiz(*questions: Question, title: str = "Quick check") -> Quiz:
    """Build a :class:`Quiz` from questions."""
    return Quiz(questions, title=title)


def _strip_tags(text: str) -> str:
    import re

    return re.sub(r"<[^>]+>", "", text)


def _bundle(widget: widgets.Widget) -> dict[str, Any]:
    bundle = widget._repr_mimebundle_()
    return bundle[0] if isinstance(bundle, tuple) else bundle
