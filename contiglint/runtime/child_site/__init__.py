"""Holds the `sitecustomize.py` that `contiglint run` puts first on PYTHONPATH so that Python
interpreters started by the watched program (multiprocessing/torch.multiprocessing spawn,
subprocess) watch themselves too. A package only so that it is installed with contiglint."""
