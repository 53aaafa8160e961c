"""Starting the app: booting the agent off the UI thread (`booting`, and `boot` for the UI's side
of it), the parsed-stylesheet cache (`css_cache`) and the garbage collector's settings
(`gc_tuning`)."""
