"""Claude Code's plugins: a folder with `.claude-plugin/plugin.json` that bundles slash commands,
sub-agent types, skills, hooks and MCP servers (`manifest`), the person's list of them
(`registry`, `agent-tui plugin add|list|remove`), and what a session makes of them once the
person trusts each one (`session`)."""
