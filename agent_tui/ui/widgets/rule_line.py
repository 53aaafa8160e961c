"""The approval dialog's editable "always" line: the rules an "always" answer will save, filled
with the engine's narrow suggestion (`permissions/suggest.py`) and open to editing before saving.
Several rules are separated by commas outside parentheses."""

from __future__ import annotations

from textual.widgets import Input

from agent_tui.permissions.rules import split_rules


def rule_problem(rules: tuple[str, ...]) -> str | None:
    """Why these rules can't be saved to the project's local settings, or None."""
    from agent_tui.permissions.rules import RuleError, parse_rule
    from agent_tui.permissions.settings import restriction

    if not rules:
        return "no rule to save"
    for text in rules:
        try:
            rule = parse_rule(text)
        except RuleError as exc:
            return str(exc)
        refused = restriction(rule)
        if refused:
            return f"{rule.text}: {refused}"
    return None


class RuleLine(Input):
    """Shown once `a` is pressed; `e` focuses it, Enter saves what it holds."""

    def __init__(self, rules: tuple[str, ...]) -> None:
        super().__init__(value=", ".join(rules), id="rule", select_on_focus=False)

    @property
    def rules(self) -> tuple[str, ...]:
        return split_rules(self.value)
