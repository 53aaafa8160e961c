"""Checkpoints of what each turn changed on disk, and taking it back (issue 15).

Before a turn's first tool call that can change files, the checkpointer records the state it may
change: in a git work tree a snapshot of the whole tree (a tree object built from a temporary
index, so the person's index and branches are untouched), and always the previous content of each
file Write or Edit touches. After the turn, the same again, and one `FilesChanged` event says what
changed. Undo and rewind plan a restore from those events and never overwrite a file the person
changed since without being told to. Nothing here knows of Textual.
"""
