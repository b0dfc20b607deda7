"""The text UI: pure simpleline screens over an editor state, and the Anaconda spoke."""
