"""The Textual UI: it draws the core's typed events, and holds all of the app's Textual code.

Importing it changes no process-wide setting: the garbage collector's are the entry point's to
ask for (`gc_tuning`), and the speed-ups to Textual (`agent_tui.speedups`) apply once the app
has painted its first frame.
"""
