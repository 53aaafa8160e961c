"""`agent-tui acp`: the Agent Client Protocol over stdio (on the protocol's official Python
package, `agent-client-protocol`), so an editor such as Zed, or Toad, drives agent-tui's agent:
`mapping` turns its events and approval requests into the protocol's updates and permission
requests; `server` holds the sessions."""
