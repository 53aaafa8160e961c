"""The Textual UI: it draws the core's typed events, and holds all of the app's Textual code.

Importing it quiets the garbage collector until the app tunes it, once the agent is ready
(`gc_tuning.for_startup`).
"""

from agent_tui.ui.gc_tuning import for_startup

for_startup()
