"""Checkpoints of what the agent's calls changed on disk, and taking it back (issues 15, 27, 29).

Each call that can change files is recorded as it happens: before it runs, the state it may
change (a Write or Edit: the file's content; a shell command or MCP tool in a git work tree: a
snapshot of the whole tree, built from a private index so the person's index and branches are
untouched), and as soon as it finishes, what it changed. What the person does between calls is
never the agent's, nor are the app's own writes. A turn's calls are summed up in one
`FilesChanged`; a turn cut short by a kill is rebuilt from its calls' records. Undo and rewind
plan a restore from those records, let the person choose file by file (a conflict — a file
someone else may have changed — is kept unless chosen), and write only where the checkpoint
recorded, never through a symbolic link planted since. Nothing here knows of Textual.
"""
