"""Hooks in Claude Code's format (`PreToolUse`, `PostToolUse`, `UserPromptSubmit`, `Stop`,
`Notification`), read from our TOML settings: config.py (the `[[hooks.EVENT]]` tables), runner.py
(running the matching commands: JSON on stdin, a timeout, the sandbox), outcome.py (what their exit
codes and JSON output decide). Textual-free."""
