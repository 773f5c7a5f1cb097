"""Placeholder: this family of commands is being written (see the issues)."""


def register(sub) -> None:
    pass
