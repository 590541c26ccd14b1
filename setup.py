"""One build step pyproject.toml cannot declare: `contiglint verify`'s default fixture set,
the repository's fixtures/ (its one copy), goes into the wheel as package data, under
contiglint/verify/fixtures/. Everything else is configured in pyproject.toml."""
import os

from setuptools import setup
from setuptools.command.build_py import build_py

FIXTURES = "fixtures"
PACKAGED = os.path.join("contiglint", "verify", "fixtures")


class BuildPyWithFixtures(build_py):
    def run(self):
        super().run()
        if getattr(self, "editable_mode", False):
            return  # an editable install reads the checkout's fixtures/ in place
        for directory, _, names in os.walk(FIXTURES):
            for name in sorted(names):
                if name.endswith(".py"):
                    source = os.path.join(directory, name)
                    target = os.path.join(self.build_lib, PACKAGED,
                                          os.path.relpath(source, FIXTURES))
                    self.mkpath(os.path.dirname(target))
                    self.copy_file(source, target)


setup(cmdclass={"build_py": BuildPyWithFixtures})
