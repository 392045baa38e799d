"""One form for every API action: fields built from the API, validated before the call."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from rich.markup import escape
from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.geometry import Spacing
from textual.screen import ModalScreen
from textual.widget import Widget
from textual.widgets import Button, Input, Label, Select, SelectionList, Static

from pibench_tui.tui.actions import ActionSpec, Field, plural, validate
from pibench_tui.tui.game import Game
from pibench_tui.tui.screens.guard import GuardedDialog
from pibench_tui.tui.screens.toasts import keep_toasts_under
from pibench_tui.tui.widgets.checklist import CheckList
from pibench_tui.tui.widgets.choice import Choice
from pibench_tui.tui.widgets.typed_input import TypedInput


def _number(word: str) -> float | None:
    """``word`` read as a number (``"8"``, ``"6.50"``, ``"$1,500"``), or ``None``."""
    try:
        return float(word.strip("$.;:"))
    except ValueError:
        return None


class ConfirmAction(GuardedDialog[bool]):
    """Yes or no before an irreversible action; the question names its target in full. A ``y``
    typed before the question was drawn is ignored (:class:`~pibench_tui.tui.screens.guard.GuardedDialog`):
    the focus starts on No, so an ``enter`` typed early answers no."""

    GUARDED_KEYS = ("y",)

    BINDINGS = [
        Binding("y", "answer(True)", "Yes", id="confirm-yes"),
        Binding("n,escape", "answer(False)", "No", id="confirm-no"),
    ]

    def __init__(self, question: str) -> None:
        super().__init__()
        self.question = question

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="form-box"):
            yield Label("Are you sure?", id="form-title")
            yield Static(Text(self.question, style="bold"), id="confirm-question")
            with Horizontal(id="form-buttons"):
                yield Button("Yes (y)", variant="error", id="confirm-yes")
                yield Button("No (n / esc)", id="confirm-no")

    def on_mount(self) -> None:
        self.query_one("#confirm-no", Button).focus()
        keep_toasts_under(self)

    def early_key_ignored(self) -> None:
        self.query_one("#form-title", Label).update("Are you sure? (a key typed before this showed was ignored)")

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "confirm-yes")

    def action_answer(self, yes: bool) -> None:
        """Answer the question."""
        self.dismiss(yes)


class ActionForm(ModalScreen[dict | None]):
    """A dialog for one :class:`~pibench_tui.tui.actions.ActionSpec`.

    Dismisses with the validated values (``{}`` for a plain confirmation), or ``None``
    when cancelled. ``ctrl+o`` sends; ``escape`` cancels.

    Enter in a field goes on with the form, the same in every kind of field (a number, a list,
    a closed choice): it sends the form once every required field is filled; while one is
    still empty (nothing ticked in a list that needs someone, a number cleared, nothing
    chosen) it moves the focus to the first such field instead, so one enter never sends a
    form the player has not seen whole, nor refuses it for a field they have not reached. On
    an empty choice enter opens its list; inside an opened list enter picks the highlighted
    option and the form stays open. Sending an irreversible action (an offer, a dismissal, a
    stopped project) still asks first (:class:`ConfirmAction`).

    Args:
        spec: the action.
        game: the career (fields are built from its API).
        blink: cursor blink (off in tests).
        apply: called with the clean values when the form is sent; returns ``None`` when
            the API accepted the call, or the API's refusal message. A refused call keeps
            the form open, with the message shown under the fields, so the player can
            correct the values (``None``: the form only validates and dismisses).
        highlighted: the id the form starts on (:func:`~pibench_tui.tui.alerts.form_start`: the
            row the player chose, or the target of the warning whose key opened it), in every
            field offering it, before any field's own default.
        cursor: the id of the panel's highlighted row when the player did not choose it (the
            table's own placement): a field starts on it only when the field has no default
            of its own (the answer form's soonest-expiring event).
    """

    BINDINGS = [
        Binding("escape", "cancel", "Cancel", id="form-cancel"),
        Binding("ctrl+o", "send_in_turn", "OK", id="form-send", priority=True),
        Binding("tab", "focus_field(1)", "Next field", show=False),
        Binding("shift+tab", "focus_field(-1)", "Previous field", show=False),
    ]
    FOCUS_KEYS = ("tab", "shift+tab")
    """Keys whose binding moves the focus: keys typed right after one reach the field it moves
    to (:class:`~pibench_tui.tui.typeahead.TypeAhead`)."""

    def __init__(
        self,
        spec: ActionSpec,
        game: Game,
        *,
        blink: bool = True,
        apply: Callable[[dict], str | None] | None = None,
        highlighted: str | None = None,
        cursor: str | None = None,
    ) -> None:
        super().__init__()
        self.highlighted = highlighted or cursor
        self._start = highlighted
        self._cursor = cursor
        self.spec = spec
        self.apply = apply
        self.game = game
        self.fields: list[Field] = spec.fields(game)
        self.blink = blink
        self._values: dict[str, Any] = {}
        for f in self.fields:
            self._values[f.name] = self._initial(f)
        self._defaults: dict[str, Any] = dict(self._values)  # what each field started with
        self._refused_field: int | None = None  # after a refusal: the field tab goes back to

    # ------------------------------------------------------------------ building
    def _options(self, f: Field) -> list[tuple[str, Any]]:
        return f.options(self._values) if callable(f.options) else list(f.options)

    def _initial(self, f: Field) -> Any:
        if f.kind == "number":
            default = f.default_for(self._values)
            return "" if default is None else f"{default:g}" if isinstance(default, (int, float)) else str(default)
        opts = self._options(f)
        values = [v for _, v in opts]
        if f.kind == "multi":
            ticked = list(f.default_for(self._values) or [])
            if f.tick_highlighted and self.highlighted in values and self.highlighted not in ticked:
                ticked.append(self.highlighted)  # the row highlighted in the panel
            return ticked
        if self._start in values:  # the row the player chose, or the one the warning names
            return self._start
        if f.default in values:  # the field's own default beats a cursor the player did not move
            return f.default
        if self._cursor in values:  # the row highlighted in the panel
            return self._cursor
        return values[0] if values else None

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="form-box"):
            yield Label(self.spec.title, id="form-title")
            desc = self.spec.describe(self.game)
            yield Static(f"[dim]{self.spec.api}[/]" + (f" — {escape(desc)}" if desc else ""), id="form-desc")
            yield Static(
                "", id="form-summary"
            )  # costs and the lab's record, live, before the fields (visible at 80x24)
            for i, f in enumerate(self.fields):
                yield Label(f.label, id=f"label-{i}", classes="form-label")
                yield self._widget(i, f)
                if f.hint:
                    yield Static(f.hint_for(self._values), id=f"hint-{i}", classes="form-hint")
            if not self.fields:
                yield Static("Press [b]enter[/] to confirm, [b]escape[/] to cancel.", classes="form-hint")
            with Vertical(id="form-foot"):  # docked: stays in view whatever field has focus
                yield Static("", id="form-problems")
                yield Static("", id="form-target")
                with Horizontal(id="form-buttons"):
                    yield Button("OK (ctrl+o)", variant="primary", id="form-ok")
                    yield Button("Cancel (esc)", id="form-cancel")

    def _widget(self, i: int, f: Field) -> Any:
        wid = f"field-{i}"
        if f.kind == "number":
            return TypedInput(self._values[f.name], type="number", id=wid, classes="form-input")
        if f.kind == "multi":
            opts = self._options(f)
            chosen = set(self._values[f.name])
            return CheckList(*[(label, value, value in chosen) for label, value in opts], id=wid, classes="form-multi")
        opts = self._options(f)
        return Choice(
            [(label, value) for label, value in opts],
            value=self._values[f.name] if self._values[f.name] is not None else Select.NULL,
            prompt=f"choose ({plural(len(opts), 'option')})" if opts else "nothing to choose",
            id=wid,
            classes="form-select",
        )

    def on_mount(self) -> None:
        for inp in self.query(Input):
            inp.cursor_blink = self.blink
        for sl in self.query(SelectionList):
            if sl.option_count:
                sl.highlighted = 0
                for i in range(sl.option_count):  # start on the row highlighted in the panel
                    if sl.get_option_at_index(i).value == self.highlighted:
                        sl.highlighted = i
        if self.fields:
            self.query_one(f"#field-{self._first_field()}").focus()
        else:
            self.query_one("#form-ok", Button).focus()
        self.query_one("#form-summary", Static).display = False
        self.query_one("#form-problems", Static).display = False
        self._update_summary()
        keep_toasts_under(self)  # the last action's toast drew over the fields at 80x24

    def _first_field(self) -> int:
        """The field the form starts in: a per-row field of the row highlighted in the panel
        (``h:S002`` of the mentoring form opened on S002's row), else the first one."""
        if self.highlighted:
            for i, f in enumerate(self.fields):
                if f.name.partition(":")[2] == self.highlighted:
                    return i
        return 0

    @on(events.DescendantFocus)
    def _label_with_field(self, event: events.DescendantFocus) -> None:
        """A focused field comes into view with its label (what it is for): Textual scrolls only a
        widget not entirely in view, so a field at the top edge of a scrolled form showed
        without its label (QA, mentoring form at 80x24). Runs after Textual's own scroll."""
        widget = event.widget
        if self._field_of(widget.id) is not None:
            self.call_after_refresh(self._show_with_label, widget)

    def _show_with_label(self, widget: Widget) -> None:
        if self.focused is not widget or widget.id is None:
            return
        label = self.query_one(f"#label-{widget.id.removeprefix('field-')}", Label)
        box = self.query_one("#form-box", VerticalScroll)
        under = Spacing(0, 0, self.query_one("#form-foot").outer_size.height, 0)  # the docked foot covers it
        box.scroll_to_region(
            label.virtual_region.union(widget.virtual_region), spacing=under, animate=False, immediate=True
        )

    # ------------------------------------------------------------------ values
    def _field_of(self, widget_id: str | None) -> Field | None:
        if not widget_id or not widget_id.startswith("field-"):
            return None
        return self.fields[int(widget_id.split("-", 1)[1])]

    @on(Select.Changed)
    def _select_changed(self, event: Select.Changed) -> None:
        f = self._field_of(event.select.id)
        if f is None:
            return
        self._values[f.name] = None if event.value is Select.NULL else event.value
        for i, g in enumerate(self.fields):  # refresh choices that depend on this one
            if g is not f and callable(g.options) and g.kind == "choice":
                opts = self._options(g)
                sel = self.query_one(f"#field-{i}", Select)
                sel.set_options(opts)
                self._values[g.name] = opts[0][1] if opts else None
                if opts:
                    sel.value = opts[0][1]
        for i, g in enumerate(self.fields):  # a number whose default follows the choices, unless edited
            if g.kind == "number" and callable(g.default) and self._values[g.name] == self._defaults.get(g.name):
                value = self._initial(g)
                self._defaults[g.name] = self._values[g.name] = value
                self.query_one(f"#field-{i}", Input).value = value
        for i, g in enumerate(self.fields):  # a hint that follows the choices (the polish hours' note)
            if callable(g.hint):
                self.query_one(f"#hint-{i}", Static).update(g.hint_for(self._values))
        self._update_summary()

    @on(Input.Changed)
    def _input_changed(self, event: Input.Changed) -> None:
        f = self._field_of(event.input.id)
        if f is not None:
            self._values[f.name] = event.value
            self._update_summary()

    @on(SelectionList.SelectedChanged)
    def _multi_changed(self, event: SelectionList.SelectedChanged) -> None:
        f = self._field_of(event.selection_list.id)
        if f is not None:
            self._values[f.name] = list(event.selection_list.selected)
            self._update_summary()

    def target(self) -> str:
        """What sending acts on, as the line above OK names it (issue 27 §4: a form must not hide
        its target once its first field scrolls away): ``spec.target`` when the action gives
        one, else each choice field's chosen option (its label up to the first " · " or ":")
        and each list's ticked values (an optional list only when something is ticked: the
        proposal's evidence), joined by " · "; ``""`` for a form with neither (a plain
        confirmation, the mentoring hours)."""
        if self.spec.target is not None:
            return self.spec.target(self.game, self._values)
        parts = []
        for f in self.fields:
            name, value = f.label.split(" (")[0], self._values[f.name]
            if f.kind == "choice":
                label = next((str(lab) for lab, v in self._options(f) if v == value and value is not None), "")
                parts.append(label.split(" · ")[0].split(":")[0] if label else f"{name}: none chosen")
            elif f.kind == "multi" and (f.required or value):
                parts.append(f"{name} {', '.join(map(str, value or [])) or 'none ticked'}")
        return " · ".join(parts)

    def _update_summary(self) -> None:
        line = self.target()
        box = self.query_one("#form-target", Static)
        box.update(Text.assemble(("Acts on: ", "bold"), line) if line else "")
        box.display = bool(line)
        if self.spec.summary is not None:
            try:
                text = self.spec.summary(self.game, self._values)
            except Exception as exc:  # noqa: BLE001 - a summary must never break the form
                text = str(exc)
            box = self.query_one("#form-summary", Static)
            box.update(text)
            box.display = bool(text)
        self.call_after_refresh(self._focused_in_view)

    def _focused_in_view(self) -> None:
        """Keep the focused field in view once the summary and the target line above OK have
        changed height (a longer summary pushed the field under the docked foot)."""
        if self.focused is not None and self._field_of(self.focused.id) is not None:
            self._show_with_label(self.focused)

    @property
    def values(self) -> dict[str, Any]:
        """The form's raw values (strings for numbers)."""
        return dict(self._values)

    # ------------------------------------------------------------------ sending
    @on(Input.Submitted)
    @on(CheckList.Submitted)
    @on(Choice.Submitted)
    def _submitted(self) -> None:
        """Enter in a field (class docstring): the first required field still empty other
        than the one enter was pressed in gets the focus; with none, the form is sent."""
        self._read_fields()
        here = self.focused.id if self.focused is not None else None
        for i, f in enumerate(self.fields):
            if f.required and not f.filled(self._values[f.name]) and f"field-{i}" != here:
                self.query_one(f"#field-{i}").focus()
                return
        self.action_send()

    @on(Button.Pressed, "#form-ok")
    def _ok(self) -> None:
        self.action_send()

    @on(Button.Pressed, "#form-cancel")
    def _cancel(self) -> None:
        self.action_cancel()

    def show_problems(self, lines: list[str]) -> None:
        """Show problems under the fields (validation, or the API's refusal); ``[]`` hides them."""
        box = self.query_one("#form-problems", Static)
        box.update(Text("\n".join(lines), style="bold red"))
        box.display = bool(lines)

    def action_send_in_turn(self) -> None:
        """ctrl+o: send once the keys typed before it have been applied. ctrl+o is a priority key,
        handled as the app receives it, while the keys typed just before it in a burst may still
        wait in the focused field's queue (``1 5 ctrl+o`` sent the hours the field showed before
        the 1); the send is queued behind them (:meth:`action_send`), and behind what they
        posted in turn (a list's space toggles its row through a message to itself)."""
        widget = self.focused
        if widget is None:
            self.action_send()
        else:
            widget.call_later(widget.call_later, self.action_send)

    def action_send(self) -> None:
        """Validate, make the call, and dismiss when the API accepted it.

        A validation problem or an API refusal keeps the form open with the message shown.
        The values sent are those the fields show now (:meth:`_read_fields`).
        """
        self._read_fields()
        clean, problems = validate(self.fields, self._values)
        if problems:
            self.show_problems(problems)
            return
        question = self.spec.confirm(self.game, clean) if self.spec.confirm is not None else ""
        if question and self.apply is not None:
            self.app.push_screen(ConfirmAction(question), partial(self._confirmed, clean))
            return
        self._make_call(clean)

    def _read_fields(self) -> None:
        """Take each field's value from its widget. The change messages that keep
        :attr:`values` current can still be queued when the form is sent: in a fast burst
        (``space enter`` in a list) the last tick was not counted yet."""
        for i, f in enumerate(self.fields):
            widget = self.query_one(f"#field-{i}")
            if isinstance(widget, CheckList):
                self._values[f.name] = list(widget.selected)
            elif isinstance(widget, Input):
                self._values[f.name] = widget.value
            elif isinstance(widget, Select):
                self._values[f.name] = None if widget.value is Select.NULL else widget.value

    def _confirmed(self, clean: dict, yes: bool | None) -> None:
        if yes:
            self._make_call(clean)

    def _make_call(self, clean: dict) -> None:
        if self.apply is not None:
            refusal = self.apply(clean)
            if refusal is not None:
                self._refused_field = self._field_refused(refusal)
                label = self.fields[self._refused_field].label if self.fields else ""
                self.show_problems(
                    [
                        f"{self.spec.api} refused: {refusal}",
                        # a form with no fields (a conference trip) has no values to change
                        f"Press tab to change {label} and send again, or press escape to cancel."
                        if label
                        else "Press escape to cancel.",
                    ]
                )
                # the fields let go of the focus: keys typed next do not land in them unseen;
                # tab takes the player back to the field the refusal is about (action_focus_field)
                self.set_focus(None)
                problems = self.query_one("#form-problems", Static)
                problems.scroll_visible(animate=False)
                return
        self.dismiss(clean)

    def _field_refused(self, refusal: str) -> int:
        """The index of the field ``refusal`` is about: the first number field whose value the
        message names ("needs 8 h but only 6.50 h are left": the hours), else the first field
        whose value it names, else the first number field, else the first field."""
        words = set(refusal.replace(",", " ").replace("(", " ").replace(")", " ").split())

        def named(f: Field) -> bool:
            value = self._values.get(f.name)
            if f.kind == "number":
                try:
                    number = float(str(value))
                except ValueError:
                    return False
                return any(_number(w) == number for w in words)
            return value is not None and str(value) in words

        numbers = [i for i, f in enumerate(self.fields) if f.kind == "number"]
        for i in (*numbers, *range(len(self.fields))):
            if named(self.fields[i]):
                return i
        return numbers[0] if numbers else 0

    def action_focus_field(self, step: int) -> None:
        """Tab (``step`` 1) and shift+tab (-1): after a refusal, while no field has the focus,
        the field the refusal is about (:meth:`_field_refused`), so typing next edits it; else
        the next or previous widget, as everywhere."""
        if self.focused is None and self._refused_field is not None and self.fields:
            self.query_one(f"#field-{self._refused_field}").focus()
            return
        # the fields in order, then OK and Cancel: the docked foot with the buttons would
        # otherwise come first in Textual's focus chain
        n = len(self.fields)
        rank = {f"field-{i}": i for i in range(n)} | {"form-ok": n, "form-cancel": n + 1}
        chain = sorted((w for w in self.focus_chain if w.id in rank), key=lambda w: rank[str(w.id)])
        if chain and (self.focused is None or self.focused in chain):
            here = chain.index(self.focused) if self.focused in chain else (-1 if step > 0 else 0)
            chain[(here + step) % len(chain)].focus()
        elif step > 0:
            self.focus_next()
        else:
            self.focus_previous()

    def action_cancel(self) -> None:
        """Close without acting."""
        self.dismiss(None)
