"""Test helpers shipped with the package (the nbval plugin for MyST chapters)."""
