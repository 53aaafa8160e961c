"""MCP servers (Claude Code's `mcpServers` format) as tools of the agent, on the official `mcp`
SDK: `config` reads the files, `manager` starts and talks to the servers, `tool` adapts each
server tool to the `Tool` interface as `mcp__<server>__<tool>`."""
