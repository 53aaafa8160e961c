"""The app's collaborators: what a key, a `/command` or the agent's question sets going — turns,
approvals, undo and rewind, permission modes, replay, sessions, slash commands, shortcuts, the
rubber-stamp guard, the notifier. Each owns its state and reaches the app through a small host
protocol; none draws (screens and widgets do)."""
