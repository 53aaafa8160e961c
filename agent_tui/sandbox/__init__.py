"""The OS sandbox: Bash commands (and project MCP servers) run where they can write only the
working directory, read no secrets and reach the network only through the app's proxy.

`base.py` is the interface a backend implements (Linux: `bwrap.py`, on bubblewrap); `config.py`
reads the person's `[sandbox]` settings; `layout.py` works out what is writable, read-only and
hidden; `proxy.py` is the network proxy outside the sandbox and `inside.pl` (`inside.py` where
there is no perl) its bridge inside;
`runner.py` runs one command in it; `report.py` says what the boundary blocked; `reaper.py`
keeps no process alive after the app (27.4).
"""
