"""The interpreter: abstract execution of a module's functions over the layout model."""
