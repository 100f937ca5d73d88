"""The declaration layer: what a program is, checked once, with no knowledge of any surface."""
