"""Surfaces: pure projections of the declared model (help, cards, schemas, completions).

Each module is a function of a Program/Command and reads nothing but the model. Import the
module you need (`from workbench.surfaces.help import render_help`); this package imports
nothing eagerly so `tool --help` stays cheap.
"""
