"""Both papers' geometry along the training trajectory of the trained-here twins.

* :mod:`~companion.llm.trajectory.geometry`: one checkpoint read by both engines (every norm
  by the dead-direction engine, every Linear layer by the sign-flip building blocks);
* :mod:`~companion.llm.trajectory.driver`: one resumable record per (model, checkpoint);
* :mod:`~companion.llm.trajectory.cli`: ``companion train-geometry``.

It sits above both engines (it uses each) and below ``llm.cli``. Importing this package
imports neither torch nor transformers.
"""
