"""Starting the app: booting the agent off the UI thread (`booting`, and `boot` for the UI's side
of it), what a resumed session's boot imports while the first frame waits (`preload`) and the
garbage collector's settings (`gc_tuning`)."""
