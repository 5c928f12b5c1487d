"""Closed forms and simulations for both papers (numpy/scipy only, never torch)."""
