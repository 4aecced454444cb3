# The console's words.
