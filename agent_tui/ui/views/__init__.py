"""From domain data to what the widgets show, with no widgets of their own: domain events routed
to the chat, panes and status line (`event_view`), one tool call's bookkeeping (`tool_activity`),
the sessions browser's rows (`session_rows`), a rule's effect on past sessions (`rule_preview`)."""
