"""The chat pane: the conversation as it streams and as it was (`messages`), its scrolling list
(`view`), finished answers parked far from the view (`parking`), and the markdown beneath them —
cut into pieces (`markdown_split`), rendered once each (`markdown_pieces`), painted as widgets
(`markdown_segment`) with code whose lexers load off the UI thread (`code_lexers`)."""
