"""sleighsweep's analysis library: a sweep file as an xarray.Dataset
(`open`), its groups, a squeezed netCDF-4 export for CDO and NCO
(`export`), and plot functions (`sleighsweep.plot`) that take a Dataset
or DataArray and an optional matplotlib Axes and return the Axes."""
from .dataset import FileError, codes, export, flag_table, open  # noqa: F401

__all__ = ["open", "export", "codes", "flag_table", "FileError"]
