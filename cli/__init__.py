"""The `pyramid-referee` command line."""
