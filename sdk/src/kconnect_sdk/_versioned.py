"""Version lookup shared by every plugin base class."""

from __future__ import annotations

import functools
import importlib.metadata as md
import sys
from collections.abc import Mapping

__all__ = ["Versioned", "distribution_version"]

UNKNOWN_VERSION = "unknown"


@functools.cache
def _packages_distributions() -> Mapping[str, list[str]]:
    return md.packages_distributions()


def distribution_version(module_name: str) -> str:
    """The version of the installed distribution that provides ``module_name``.

    Returns "unknown" when the module does not come from an installed distribution.
    """
    top = module_name.partition(".")[0]
    # Editable installs are missing from packages_distributions(); our distributions are
    # named after their import package (kconnect_connector_file -> kconnect-connector-file).
    candidates = [*_packages_distributions().get(top, []), top.replace("_", "-")]
    for dist in candidates:
        try:
            return md.version(dist)
        except md.PackageNotFoundError:
            continue
    module = sys.modules.get(top)
    version = getattr(module, "__version__", None)
    return version if isinstance(version, str) else UNKNOWN_VERSION


class Versioned:
    """Mixin: ``version()`` reports the version of the distribution that ships the class.

    Override it only when a plugin's version differs from its distribution's.
    """

    def version(self) -> str:
        return distribution_version(type(self).__module__)
